"""Conditions of the validator that nothing else exercises: each test fails when its condition is removed from the
validator (a row's top_k bound, a fused lane rank's candidate depth, a run's completion in the ledger, the ledger's
back-links, a relevance grade no metric can be computed from, a mapping's own account of its store, the fixture's
embedding identity digest). The tie rule under a storage order other than doc-id order has its own module,
test_ties.py."""

import json
from contextlib import closing
from pathlib import Path

import pytest

from harness.validator.core.report import FAIL
from harness.validator.pipeline import validate

from . import forger
from .support import (
    Json,
    Row,
    RunCopy,
    assert_fails,
    chain_digest,
    check_named,
    describe,
    history_rows,
    rechain_history,
    set_run,
    sha256_file,
    writable_history,
)


def test_a_row_with_more_results_than_top_k(run_copy: RunCopy) -> None:
    """The receipt's cut is 5; every vector_only row holds all 10 documents."""
    path = run_copy.edit_receipt("vector_only", "calibration", lambda r: r["retrieval"].update(top_k=5))
    check = check_named(validate(path, embeddings=False), "rows.results")
    assert (check.status, check.expected, check.found) == (FAIL, "at most 5 results", 10), check


def test_a_fused_lane_rank_beyond_the_candidate_depth(run_copy: RunCopy) -> None:
    """A hybrid result's lexical rank moved past the candidate depth, its fused score recomputed from it and the
    row re-sorted and resealed: every fused score is the RRF of its ranks, only the depth is broken."""
    config = run_copy.aggregate("hybrid", "calibration")["receipt"]["retrieval"]["config"]
    depth = config["hybrid_candidate_depth"]
    rows = run_copy.rows("hybrid", "calibration")
    result = next(r for r in rows[0]["results"] if r["lanes"]["lexical"]["rank"] is not None)
    result["lanes"]["lexical"]["rank"] = depth + 1
    forger.fuse(rows[0], config["rrf_k"])
    forger.write_forged(run_copy, "hybrid", "calibration", rows)
    check = check_named(validate(run_copy.aggregate_path("hybrid", "calibration"), embeddings=False), "rows.fusion")
    assert check.status == FAIL and check.found == depth + 1, check
    assert check.expected == f"1..{depth}" and "lanes.lexical.rank is not within the candidate depth" in check.detail, (
        check)


def test_a_relevance_grade_no_float_can_hold(run_copy: RunCopy) -> None:
    """2^grade - 1 overflows a float: the row is refused by rows.metrics, not a validator fault."""
    def change(rows: list[Row]) -> None:
        rows[0]["qrels"][next(iter(rows[0]["qrels"]))] = 2**40
    report = validate(run_copy.edit_rows("fts_only", "calibration", change), embeddings=False)
    check = check_named(report, "rows.metrics")
    assert check.status == FAIL and "relevance grade" in str(check.found), describe(report)


@pytest.mark.parametrize(("field", "value"), [("documents", 11), ("namespace", "another"),
                                              ("fixture_sha256", "sha256:" + "1" * 64)])
def test_a_mapping_that_misstates_its_store(run_copy: RunCopy, field: str, value: object) -> None:
    """Its pairs untouched, the mapping states another count, namespace or fixture; every digest resealed."""
    store = run_copy.copy_store()
    mapping = json.loads((store / "mapping.json").read_text(encoding="utf-8"))
    mapping[field] = value
    (store / "mapping.json").write_text(json.dumps(mapping), encoding="utf-8")
    report = validate(forger.reseal_store(run_copy, store, "fts_only", "calibration"), embeddings=False)
    assert_fails(report, ("store.mapping_coverage",))


@pytest.mark.parametrize(("block", "field", "value", "named"), [
    ("identity", "libraries", {"torch": "0.0"}, "identity_sha256"),  # an identity whose digest nobody recomputed
    (None, "model", "sentence-transformers/another-model", "model or backend"),  # a model its identity does not name
])
def test_an_embedding_block_at_odds_with_its_identity(run_copy: RunCopy, block: str | None, field: str,
                                                      value: object, named: str) -> None:
    """The fixture and the receipt agree on the changed embedding block; only the identity can object."""
    fixture_path, _ = run_copy.copy_fixture()
    fixture = json.loads(fixture_path.read_text(encoding="utf-8"))
    (fixture["embedding"][block] if block else fixture["embedding"])[field] = value
    fixture_path.write_text(json.dumps(fixture, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")

    def follow(receipt: Json) -> None:
        receipt["corpus"]["fixture_sha256"] = sha256_file(fixture_path)
        receipt["embedding"].update(fixture["embedding"])
    report = validate(run_copy.edit_receipt("fts_only", "calibration", follow), embeddings=False)
    assert_fails(report, ("receipt.embedding",))
    assert named in str(check_named(report, "receipt.embedding").found), describe(report)


@pytest.mark.parametrize("ending", ["failed", "never finished"])
def test_a_run_that_did_not_complete(run_copy: RunCopy, ending: str) -> None:
    """The ledger's last event is the last run's run-finished; it says the run failed, or it is gone, the runs table
    says the same, and the chain is rewritten consistently. No receipt records that event's position or digest."""
    store = run_copy.copy_store()
    events = [json.loads(text) for _, text, _, _ in history_rows(store)]
    last = events[-1]
    assert last["event"] == "run-finished" and last["status"] == "complete", last
    if ending == "failed":
        last["status"] = "failed"
        set_run(store, last["run_id"], "failed", last["finished_at"])
    else:
        events.pop()
        set_run(store, last["run_id"], "running", None)
    rechain_history(store, events)
    _, mode, split, _ = last["run_id"].split("/")
    report = validate(run_copy.aggregate_path(mode, split), embeddings=False)
    assert_fails(report, ("ledger.run",))
    assert "run-finished" in check_named(report, "ledger.run").detail, describe(report)


def _link_to(store: Path, position: int, previous: str) -> None:
    with closing(writable_history(store)) as connection:
        connection.execute("UPDATE history SET previous_digest = ? WHERE position = ?", (previous, position))


@pytest.mark.parametrize("resealed", [False, True], ids=["back-link-only", "chain-resealed-after-it"])
def test_an_edited_back_link(run_copy: RunCopy, resealed: bool) -> None:
    """Event 3's previous_digest names event 1, as if event 2 had been cut out. Left alone, every digest still
    recomputes from the event before it and only the stored back-link lies; resealed as a forger would, event 3's
    digest and every later one follow the forged link. fts_only calibration's receipt records only event 1."""
    store = run_copy.copy_store()
    rows = history_rows(store)
    position, forged = 3, rows[0][3]
    _link_to(store, position, forged)
    if resealed:
        previous = forged
        with closing(writable_history(store)) as connection:
            for at, text, _, _ in rows[position - 1:]:
                digest = chain_digest(previous, text)
                connection.execute("UPDATE history SET previous_digest = ?, digest = ? WHERE position = ?",
                                   (previous, digest, at))
                previous = digest
    assert run_copy.aggregate("fts_only", "calibration")["receipt"]["ledger"]["run_started"]["position"] < position
    report = validate(run_copy.aggregate_path("fts_only", "calibration"), embeddings=False)
    assert_fails(report, ("ledger.chain",))
    detail = check_named(report, "ledger.chain").detail
    assert f"position {position}: previous digest {forged!r}" in detail, detail
