"""Each tampering with a clean run must FAIL the check named for it, and nothing unrelated.

Every mutation works on the test's own copy of the output directory (and, where it touches them, of the
fixture or store). When a mutated rows file must keep the aggregate's per_query_sha256 (and row_count)
consistent so that the validator reaches a deeper check, the mutation says so and reseals them: the
validator stops after its file-level checks (rows.sha256, rows.count) when those fail.

`DEEP_TAMPERING` are tamperings that reseal every digest they touch, or break the artifacts' shape, so
that only a specific deeper check can catch them; each names that check.
"""

import json
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from harness.evaluation.history.ledger import LEDGER
from harness.evaluation.measures.aggregate import aggregate_metrics
from harness.validator.core.report import Report
from harness.validator.pipeline import validate
from harness.validator.retrieval.ir_metrics import KEYS

from .support import (
    Json,
    Row,
    RunCopy,
    assert_fails,
    canonical_text,
    check_named,
    describe,
    failed_names,
    flip_byte,
    history_event,
    replace_event_text,
    reseal_search_receipt,
    rewrite_history,
    sha256_bytes,
    sha256_canonical,
    sha256_file,
)

Apply = Callable[[RunCopy], "Edit"]
AGGREGATE_SIDE = frozenset({"aggregate.metrics", "aggregate.latency", "aggregate.failures", "aggregate.result_counts",
                            "aggregate.unique_docs", "aggregate.repeated_top1", "aggregate.depth"})


@dataclass(frozen=True)
class Edit:
    aggregate: Path
    mentions: dict[str, str] = field(default_factory=dict)  # check name -> text its detail/expected/found names


@dataclass(frozen=True)
class Mutation:
    id: str
    apply: Apply
    fails: tuple[str, ...]
    allowed: frozenset[str] = frozenset()  # other checks the same edit legitimately trips


def _bump_last_digit(number: str) -> str:
    index = max(i for i, char in enumerate(number) if char.isdigit())
    digit = int(number[index])
    return number[:index] + str(digit + 1 if digit < 9 else digit - 1) + number[index + 1:]


# --- the aggregate -----------------------------------------------------------------------------------------


def metric_digit_in_aggregate(copy: RunCopy) -> Edit:
    path = copy.aggregate_path("fts_only", "calibration")
    text = path.read_text(encoding="utf-8")
    metrics = json.loads(text)["metrics"]
    key = next((k for k in KEYS if 0 < metrics[k] < 1), None)
    assert key is not None, f"no fractional metric to edit in {metrics}"
    old = f'"{key}": {metrics[key]!r},'
    assert text.count(old) == 1
    path.write_text(text.replace(old, f'"{key}": {_bump_last_digit(repr(metrics[key]))},'), encoding="utf-8")
    return Edit(path, {"aggregate.metrics": key})


def nan_in_aggregate(copy: RunCopy) -> Edit:
    path = copy.aggregate_path("hybrid", "calibration")
    text, count = re.subn(r'("ndcg_at_10": )[-0-9.e]+', r"\1NaN", path.read_text(encoding="utf-8"), count=1)
    assert count == 1
    path.write_text(text, encoding="utf-8")
    return Edit(path, {"json.strict": "NaN"})


# --- the rows ----------------------------------------------------------------------------------------------


def metric_in_row(copy: RunCopy) -> Edit:
    def change(rows: list[Row]) -> None:
        metrics = rows[0]["metrics"]
        metrics["recall_at_1"] = 0.5 if metrics["recall_at_1"] != 0.5 else 0.25
    # per_query_sha256 resealed: otherwise rows.sha256 fails and the validator stops before rows.metrics
    return Edit(copy.edit_rows("fts_only", "calibration", change), {"rows.metrics": "recall_at_1"})


def ranked_id_changed(copy: RunCopy) -> Edit:
    rows = copy.rows("vector_only", "calibration")
    ranked = rows[0]["ranked_doc_ids"]
    ranked[0], ranked[1] = ranked[1], ranked[0]
    return Edit(copy.write_rows("vector_only", "calibration", rows, reseal_digest=True),
                {"rows.results": rows[0]["query_id"]})


def row_dropped(copy: RunCopy) -> Edit:
    return Edit(copy.edit_rows("fts_only", "heldout", lambda rows: rows[:-1], reseal_digest=False))


def row_dropped_digest_resealed(copy: RunCopy) -> Edit:
    return Edit(copy.edit_rows("fts_only", "heldout", lambda rows: rows[:-1]), {"rows.count": "row_count"})


def row_dropped_digest_and_count_resealed(copy: RunCopy) -> Edit:
    dropped = copy.rows("fts_only", "heldout")[-1]["query_id"]
    path = copy.edit_rows("fts_only", "heldout", lambda rows: rows[:-1], reseal_count=True)
    return Edit(path, {"split.membership": dropped})


def rows_reordered(copy: RunCopy) -> Edit:
    return Edit(copy.edit_rows("fts_only", "heldout", lambda rows: rows[::-1], reseal_digest=False))


def rows_reordered_digest_resealed(copy: RunCopy) -> Edit:
    return Edit(copy.edit_rows("fts_only", "heldout", lambda rows: rows[::-1]))


def qrels_altered(copy: RunCopy) -> Edit:
    rows = copy.rows("fts_only", "calibration")
    qrels = rows[0]["qrels"]
    qrels[next(f"d{i:02d}" for i in range(1, 11) if f"d{i:02d}" not in qrels)] = 1
    return Edit(copy.write_rows("fts_only", "calibration", rows, reseal_digest=True),
                {"rows.query_identity": rows[0]["query_id"]})


def split_membership_flipped(copy: RunCopy) -> Edit:
    """A calibration row replaced by a held-out query's row, relabelled as calibration (digest resealed)."""
    intruder = copy.rows("fts_only", "heldout")[0]
    intruder["split"] = "calibration"
    rows = copy.rows("fts_only", "calibration")
    rows[0] = intruder
    return Edit(copy.write_rows("fts_only", "calibration", rows, reseal_digest=True),
                {"split.membership": intruder["query_id"]})


def duplicate_key_in_row(copy: RunCopy) -> Edit:
    path = copy.rows_path("vector_only", "calibration")
    data = path.read_bytes()
    assert data.startswith(b'{"schema":')
    path.write_bytes(b'{"query_id":"q-duplicate",' + data[1:])
    return Edit(copy.aggregate_path("vector_only", "calibration"), {"json.strict": "duplicate key 'query_id'"})


def search_receipt_edited(copy: RunCopy) -> Edit:
    rows = copy.rows("fts_only", "calibration")
    rows[0]["search_receipt"]["top_k"] = 5  # search_receipt_sha256 deliberately not updated
    return Edit(copy.write_rows("fts_only", "calibration", rows, reseal_digest=True),
                {"rows.search_receipts": rows[0]["query_id"]})


def result_score_edited(copy: RunCopy) -> Edit:
    rows = copy.rows("fts_only", "calibration")
    rows[0]["results"][0]["score"] += 1.0  # still first; the search receipt's results digest no longer matches
    return Edit(copy.write_rows("fts_only", "calibration", rows, reseal_digest=True),
                {"rows.search_receipts": rows[0]["query_id"]})


def fused_score_changed(copy: RunCopy) -> Edit:
    rows = copy.rows("hybrid", "calibration")
    rows[0]["results"][0]["lanes"]["fusion"]["fused_score"] += 1e-6
    return Edit(copy.write_rows("hybrid", "calibration", rows, reseal_digest=True),
                {"rows.fusion": rows[0]["query_id"]})


def lane_rank_changed(copy: RunCopy) -> Edit:
    rows = copy.rows("hybrid", "heldout")
    rows[0]["results"][0]["lanes"]["dense"]["rank"] = 7
    return Edit(copy.write_rows("hybrid", "heldout", rows, reseal_digest=True), {"rows.fusion": rows[0]["query_id"]})


def _dense_evidence(change: Callable[[Json], None]) -> Apply:
    def apply(copy: RunCopy) -> Edit:
        rows = copy.rows("vector_only", "calibration")
        change(rows[0]["search_receipt"]["lanes"]["dense"])
        reseal_search_receipt(rows[0])  # so that only the exactness check can object
        return Edit(copy.write_rows("vector_only", "calibration", rows, reseal_digest=True),
                    {"rows.exact_backend": rows[0]["query_id"]})
    return apply


def fact_id_changed(copy: RunCopy) -> Edit:
    rows = copy.rows("hybrid", "calibration")
    result = rows[0]["results"][0]
    result["fact_id"] += 1000
    reseal_search_receipt(rows[0])  # results digest and receipt digest follow the edit: only the mapping objects
    return Edit(copy.write_rows("hybrid", "calibration", rows, reseal_digest=True),
                {"rows.fact_ids": result["doc_id"]})


# --- the receipt, fixture, store and freeze ---------------------------------------------------------------


def corpus_hash_swapped(copy: RunCopy) -> Edit:
    other = sha256_bytes(b"another corpus fixture")
    return Edit(copy.edit_receipt("fts_only", "calibration", lambda r: r["corpus"].update(fixture_sha256=other)),
                {"corpus.fixture": other})


def config_edited(split: str) -> Apply:
    def apply(copy: RunCopy) -> Edit:
        path = copy.edit_receipt("fts_only", split, lambda r: r["retrieval"]["config"].update(rrf_k=30))
        return Edit(path, {"freeze.match": "search_config"} if split == "heldout" else {})
    return apply


def config_edited_digest_updated(copy: RunCopy) -> Edit:
    def change(receipt: Json) -> None:
        receipt["retrieval"]["config"]["rrf_k"] = 30
        digest = sha256_canonical(receipt["retrieval"]["config"])
        receipt["retrieval"]["config_sha256"] = receipt["system"]["configuration_sha256"] = digest  # both, as a forger
    return Edit(copy.edit_receipt("hybrid", "heldout", change), {"freeze.match": "search_config"})


def unknown_config_field(copy: RunCopy) -> Edit:
    """The schema closes the configuration, so the aggregate schema refuses the field before config.complete runs."""
    return Edit(copy.edit_receipt("fts_only", "calibration", lambda r: r["retrieval"]["config"].update(boost=2)),
                {"aggregate.schema": "at receipt/retrieval/config: Additional properties are not allowed ('boost'"})


def stale_store(copy: RunCopy) -> Edit:
    store = copy.copy_store()
    flip_byte(store / "dense.f32", 4 * 17)
    return Edit(copy.aggregate_path("vector_only", "calibration"), {"store.parts": "dense"})


def freeze_record_edited(copy: RunCopy) -> Edit:
    record = json.loads(copy.freeze_path.read_text(encoding="utf-8"))
    record["search_config"]["rrf_k"] = 30  # freeze_sha256 not updated
    copy.freeze_path.write_text(json.dumps(record, indent=1), encoding="utf-8")
    return Edit(copy.aggregate_path("fts_only", "heldout"), {"freeze.digest": record["freeze_sha256"]})


def heldout_without_freeze(copy: RunCopy) -> Edit:
    return Edit(copy.edit_receipt("vector_only", "heldout", lambda r: r.update(freeze=None)),
                {"freeze": "freeze record"})


def vector_sidecar_tampered(copy: RunCopy) -> Edit:
    _, sidecar = copy.copy_fixture()
    flip_byte(sidecar, 4 * 385)
    return Edit(copy.aggregate_path("vector_only", "calibration"), {"corpus.vectors": sidecar.name})


def profile_switched(copy: RunCopy) -> Edit:
    def change(receipt: Json) -> None:
        receipt["profile"].update(name="mteb-parity", is_contract=False, max_code_points=None, document_prefix="",
                                  query_prefix="")
    return Edit(copy.edit_receipt("fts_only", "calibration", change), {"profile.contract": "mteb-parity"})


def git_marked_dirty(copy: RunCopy) -> Edit:
    path = copy.edit_receipt("fts_only", "calibration", lambda r: r["source"]["git"].update(
        dirty=True, changed_paths=["harness/evaluation/runner.py (tampered)"]))
    return Edit(path, {"source.clean": "harness/evaluation/runner.py (tampered)"})


def interpreter_digest_changed(copy: RunCopy) -> Edit:
    other = sha256_bytes(b"another interpreter")
    return Edit(copy.edit_receipt("fts_only", "calibration",
                                  lambda r: r["executable"].update(interpreter_sha256=other)),
                {"executable.interpreter": other})


# --- the run ledger ----------------------------------------------------------------------------------------


def ledger_event_edited(copy: RunCopy) -> Edit:
    """fts_only's held-out run relabelled as a calibration run in the ledger (digests left as they were)."""
    store = copy.copy_store()
    position, event = history_event(store, "run-started", mode="fts_only", split="heldout")
    replace_event_text(store, position, canonical_text({**event, "split": "calibration"}))
    return Edit(copy.aggregate_path("fts_only", "calibration"), {"ledger.chain": f"position {position}"})


def ledger_missing(copy: RunCopy) -> Edit:
    (copy.copy_store() / LEDGER).unlink()
    return Edit(copy.aggregate_path("hybrid", "heldout"), {"ledger.file": "missing"})


def ledger_not_a_database(copy: RunCopy) -> Edit:
    store = copy.copy_store()
    for leftover in store.glob(LEDGER + "-*"):
        leftover.unlink()
    (store / LEDGER).write_bytes(b"not a database, but long enough to be mistaken for one" * 20)
    return Edit(copy.aggregate_path("fts_only", "heldout"), {"ledger.file": "DatabaseError"})


def ledger_path_elsewhere(copy: RunCopy) -> Edit:
    """The receipt names a byte-for-byte copy of the run ledger, beside it in the store under another name."""
    store = copy.copy_store()
    shutil.copy2(store / LEDGER, store / "elsewhere.sqlite3")
    return Edit(copy.edit_receipt("vector_only", "heldout", lambda r: r["ledger"].update(file="elsewhere.sqlite3")),
                {"ledger.file": "elsewhere.sqlite3"})


def run_sequence_edited(copy: RunCopy) -> Edit:
    return Edit(copy.edit_receipt("vector_only", "calibration", lambda r: r["run"].update(sequence=2)),
                {"ledger.run": "run number"})


def run_event_digest_edited(copy: RunCopy) -> Edit:
    other = sha256_bytes(b"another run-started event")
    return Edit(copy.edit_receipt("hybrid", "heldout", lambda r: r["ledger"]["run_started"].update(digest=other)),
                {"ledger.run": other})


def freeze_event_position_edited(copy: RunCopy) -> Edit:
    return Edit(copy.edit_receipt("fts_only", "heldout", lambda r: r["ledger"]["freeze"].update(position=1)),
                {"freeze.history": "position 1"})


MUTATIONS = [
    Mutation("aggregate-metric-digit", metric_digit_in_aggregate, ("aggregate.metrics",)),
    Mutation("aggregate-nan", nan_in_aggregate, ("json.strict",)),
    Mutation("row-metric", metric_in_row, ("rows.metrics",), frozenset({"aggregate.metrics"})),
    Mutation("row-ranked-id", ranked_id_changed, ("rows.results",), frozenset({"rows.metrics"}) | AGGREGATE_SIDE),
    Mutation("row-dropped", row_dropped, ("rows.sha256", "rows.count")),
    Mutation("row-dropped-digest-resealed", row_dropped_digest_resealed, ("rows.count",)),
    Mutation("row-dropped-digest-and-count-resealed", row_dropped_digest_and_count_resealed, ("split.membership",),
             AGGREGATE_SIDE),
    Mutation("rows-reordered", rows_reordered, ("rows.sha256",)),
    Mutation("rows-reordered-digest-resealed", rows_reordered_digest_resealed, ("split.membership",)),
    Mutation("row-qrels", qrels_altered, ("rows.query_identity",),
             frozenset({"rows.metrics", "rows.depth_metrics"}) | AGGREGATE_SIDE),
    Mutation("split-membership-flipped", split_membership_flipped, ("split.membership",),
             frozenset({"rows.request_ids"}) | AGGREGATE_SIDE),
    Mutation("row-duplicate-key", duplicate_key_in_row, ("json.strict",)),
    Mutation("search-receipt-edited", search_receipt_edited, ("rows.search_receipts",)),
    Mutation("result-score-edited", result_score_edited, ("rows.search_receipts",), frozenset({"replay.lexical"})),
    Mutation("hybrid-fused-score", fused_score_changed, ("rows.fusion",)),
    Mutation("hybrid-lane-rank", lane_rank_changed, ("rows.fusion",), frozenset({"replay.dense"})),
    Mutation("vector-not-exact", _dense_evidence(lambda dense: dense.update(exact=False)), ("rows.exact_backend",)),
    Mutation("vector-fewer-candidates",
             _dense_evidence(lambda dense: dense.update(candidates_scored=dense["candidates_scored"] - 1)),
             ("rows.exact_backend",)),
    Mutation("vector-other-backend", _dense_evidence(lambda dense: dense.update(backend="hnsw")),
             ("rows.exact_backend",)),
    Mutation("fact-id", fact_id_changed, ("rows.fact_ids",)),
    Mutation("corpus-hash-swapped", corpus_hash_swapped, ("corpus.fixture",)),
    Mutation("config-edited-calibration", config_edited("calibration"), ("config.sha256",)),
    Mutation("config-edited-heldout", config_edited("heldout"), ("config.sha256", "freeze.match")),
    # the ledger's run-started event bound the configuration digest the receipt now misstates (ledger.run); the
    # depth-100 lists were fused at the run's rrf_k, not the edited one (replay.depth)
    Mutation("config-edited-digest-updated-heldout", config_edited_digest_updated,
             ("freeze.match", "rows.search_receipts", "rows.fusion", "heldout.record", "ledger.run"),
             frozenset({"replay.depth"})),
    Mutation("config-unknown-field", unknown_config_field, ("aggregate.schema",)),
    # one changed bit of a stored vector may or may not change a float32 score, by the vectors this machine embedded
    Mutation("store-stale", stale_store, ("store.parts", "store.live"), frozenset({"store.vectors", "replay.dense"})),
    Mutation("freeze-edited", freeze_record_edited, ("freeze.digest",), frozenset({"freeze.match"})),
    Mutation("heldout-without-freeze", heldout_without_freeze, ("freeze", "freeze.history", "heldout.record")),
    Mutation("vector-sidecar-tampered", vector_sidecar_tampered, ("corpus.vectors",),
             frozenset({"store.vectors", "store.facts", "replay.dense", "rows.query_vectors"})),
    Mutation("profile-mteb-parity", profile_switched, ("profile.contract",), frozenset({"receipt.embedding"})),
    Mutation("git-dirty", git_marked_dirty, ("source.clean", "ledger.run")),  # the ledger bound the source block
    Mutation("interpreter-digest", interpreter_digest_changed, ("executable.interpreter",)),
    Mutation("ledger-event-edited", ledger_event_edited, ("ledger.chain",)),
    Mutation("ledger-missing", ledger_missing, ("ledger.file",)),
    Mutation("ledger-not-a-database", ledger_not_a_database, ("ledger.file",)),
    Mutation("ledger-path-elsewhere", ledger_path_elsewhere, ("ledger.file",)),
    Mutation("run-sequence-edited", run_sequence_edited, ("ledger.run",)),
    Mutation("run-event-digest-edited", run_event_digest_edited, ("ledger.run",)),
    Mutation("freeze-event-position-edited", freeze_event_position_edited, ("freeze.history",)),
]


def mentioned(report: Report, name: str, text: str) -> bool:
    check = check_named(report, name)
    return text in f"{check.detail} {check.expected!r} {check.found!r}"


@pytest.mark.parametrize("mutation", MUTATIONS, ids=[m.id for m in MUTATIONS])
def test_mutation_fails_its_check(mutation: Mutation, run_copy: RunCopy) -> None:
    edit = mutation.apply(run_copy)
    report = validate(edit.aggregate, embeddings=False)
    assert_fails(report, mutation.fails, allowed=mutation.allowed)
    for name, text in edit.mentions.items():
        assert mentioned(report, name, text), f"{name} does not mention {text!r}:\n{describe(report)}"
    assert not report.eligible and report.exit_code() == 1


def test_every_mutation_has_a_distinct_id() -> None:
    assert len({m.id for m in MUTATIONS}) == len(MUTATIONS)


# --- known gaps: the validator does not catch these today (strict xfail, with the proposed fix) -------------


def gap_row_missing_results(copy: RunCopy) -> Edit:
    def change(rows: list[Row]) -> None:
        del rows[0]["results"]
    return Edit(copy.edit_rows("fts_only", "calibration", change))


def gap_receipt_store_without_directory(copy: RunCopy) -> Edit:
    return Edit(copy.edit_receipt("fts_only", "calibration", lambda r: r["store"].pop("directory_name")))


def gap_freeze_without_search_config(copy: RunCopy) -> Edit:
    record = json.loads(copy.freeze_path.read_text(encoding="utf-8"))
    del record["search_config"]
    record["freeze_sha256"] = sha256_canonical({k: v for k, v in record.items() if k != "freeze_sha256"})
    copy.freeze_path.write_text(json.dumps(record, indent=1), encoding="utf-8")
    return Edit(copy.edit_receipt("fts_only", "heldout", lambda r: r["freeze"].update(sha256=record["freeze_sha256"])))


def gap_overflowing_number_in_row(copy: RunCopy) -> Edit:
    path = copy.rows_path("fts_only", "calibration")
    text, count = re.subn(r'("score":)[-0-9.e]+', r"\g<1>1e999", path.read_text(encoding="utf-8"), count=1)
    assert count == 1
    data = text.encode("utf-8")
    path.write_bytes(data)
    # per_query_sha256 resealed so that the validator goes on to read the row
    return Edit(copy.edit_aggregate("fts_only", "calibration", lambda a: a.update(per_query_sha256=sha256_bytes(data))))


def gap_overflowing_number_in_aggregate(copy: RunCopy) -> Edit:
    path = copy.aggregate_path("fts_only", "calibration")
    text, count = re.subn(r'("max": )[-0-9.e]+', r"\g<1>1e999", path.read_text(encoding="utf-8"), count=1)
    assert count == 1
    path.write_text(text, encoding="utf-8")
    return Edit(path)


def gap_forged_mapping(copy: RunCopy) -> Edit:
    """The receipt's mapping_file names a forged mapping in the store; rows carry its fact ids (receipts resealed)."""
    receipt = copy.aggregate("fts_only", "calibration")["receipt"]["store"]
    store = copy.copy_store()
    mapping = json.loads((store / receipt["mapping_file"]).read_text(encoding="utf-8"))
    mapping["doc_to_fact"] = {doc: fact + 100 for doc, fact in mapping["doc_to_fact"].items()}
    forged = store / "forged-mapping.json"
    forged.write_text(json.dumps(mapping), encoding="utf-8")

    def change(rows: list[Row]) -> None:
        for row in rows:
            for result in row["results"]:
                result["fact_id"] += 100
            reseal_search_receipt(row)
    copy.edit_rows("fts_only", "calibration", change)
    return Edit(copy.edit_receipt("fts_only", "calibration", lambda r: r["store"].update(mapping_file=forged.name)))


def gap_calibration_subset(copy: RunCopy) -> Edit:
    """A calibration receipt over the first query only, claiming calibration_count 1 (the contract says 2)."""
    rows = copy.rows("fts_only", "calibration")[:1]
    copy.write_rows("fts_only", "calibration", rows, reseal_digest=True, reseal_count=True)

    def change(aggregate: Json) -> None:
        aggregate["metrics"] = aggregate_metrics(rows, 10)
        aggregate["receipt"]["split"].update(calibration_count=1, selected_count=1,
                                             selected_ids_sha256=sha256_canonical([rows[0]["query_id"]]))
    return Edit(copy.edit_aggregate("fts_only", "calibration", change))


def _directory_digest(directory: Path) -> str:
    files = sorted(p for p in directory.rglob("*") if p.is_file())
    return sha256_canonical({p.relative_to(directory).as_posix(): sha256_file(p) for p in files})


def gap_store_vectors_differ_from_fixture(copy: RunCopy) -> Edit:
    """The searched store holds other document vectors than the fixture; every digest is resealed."""
    store = copy.copy_store()
    dims = copy.aggregate("vector_only", "calibration")["receipt"]["embedding"]["dimensions"]
    dense = bytearray((store / "dense.f32").read_bytes())
    width = 4 * dims
    dense[:width], dense[width:2 * width] = dense[width:2 * width], dense[:width]
    (store / "dense.f32").write_bytes(bytes(dense))
    parts = {"database": sha256_file(store / "facts.sqlite3"), "mapping": sha256_file(store / "mapping.json"),
             "lexical": _directory_digest(store / "lexical"), "dense": sha256_file(store / "dense.f32")}
    digest = sha256_canonical(parts)

    def change_rows(rows: list[Row]) -> None:
        for row in rows:
            row["search_receipt"]["store_sha256"] = digest
            reseal_search_receipt(row)
    copy.edit_rows("vector_only", "calibration", change_rows)
    return Edit(copy.edit_receipt("vector_only", "calibration", lambda r: r["store"].update(
        dense_sha256=parts["dense"], store_sha256=digest, before_run_sha256=digest, after_run_sha256=digest)))


def gap_ledger_rewritten_without_an_earlier_heldout_run(copy: RunCopy) -> Edit:
    """fts_only's held-out run deleted from the ledger and the chain rewritten consistently: every later event
    moves, and the receipts that recorded them no longer match."""
    store = copy.copy_store()
    rewrite_history(store, lambda event: not (event.get("run_id") or "").startswith("tiny-test/fts_only/heldout/"))
    return Edit(copy.aggregate_path("hybrid", "heldout"))


def _receipt_edit(mode: str, split: str, change: Callable[[Json], Any]) -> Apply:
    return lambda copy: Edit(copy.edit_receipt(mode, split, change))


@dataclass(frozen=True)
class Gap:
    id: str
    apply: Apply
    expect: str  # the check that must FAIL


def _model_contradicts_fixture(receipt: Json) -> None:
    receipt["embedding"].update(model="BAAI/bge-large-en-v1.5", dimensions=1024)


def _mode_contradicts_aggregate(receipt: Json) -> None:
    receipt["retrieval"]["mode"] = "hybrid"


def _split_contradicts_aggregate(receipt: Json) -> None:
    receipt["split"]["name"] = "heldout"


def _backend_not_exact(receipt: Json) -> None:
    receipt["retrieval"]["backend"].update(exact=False, candidates_scored=1)


DEEP_TAMPERING = [
    Gap("row-missing-results", gap_row_missing_results, "rows.schema"),
    Gap("receipt-store-without-directory", gap_receipt_store_without_directory, "aggregate.schema"),
    Gap("freeze-without-search-config", gap_freeze_without_search_config, "freeze.schema"),
    Gap("overflowing-number-in-row", gap_overflowing_number_in_row, "json.strict"),
    Gap("overflowing-number-in-aggregate", gap_overflowing_number_in_aggregate, "json.strict"),
    Gap("forged-mapping-path", gap_forged_mapping, "store.mapping_path"),
    Gap("calibration-subset", gap_calibration_subset, "split.contract"),
    Gap("store-vectors-differ-from-fixture", gap_store_vectors_differ_from_fixture, "store.vectors"),
    Gap("receipt-embedding-contradicts-fixture",
        _receipt_edit("vector_only", "calibration", _model_contradicts_fixture), "receipt.embedding"),
    Gap("receipt-mode-contradicts-aggregate", _receipt_edit("vector_only", "calibration", _mode_contradicts_aggregate),
        "receipt.identity"),
    Gap("receipt-split-contradicts-aggregate",
        _receipt_edit("vector_only", "calibration", _split_contradicts_aggregate), "receipt.identity"),
    Gap("receipt-backend-not-exact", _receipt_edit("vector_only", "calibration", _backend_not_exact),
        "receipt.exact_backend"),
    Gap("ledger-rewritten-without-an-earlier-heldout-run", gap_ledger_rewritten_without_an_earlier_heldout_run,
        "ledger.run"),
]


@pytest.mark.parametrize("gap", [pytest.param(g, id=g.id) for g in DEEP_TAMPERING])
def test_deep_tampering_is_caught(gap: Gap, run_copy: RunCopy) -> None:
    edit = gap.apply(run_copy)
    report = validate(edit.aggregate, embeddings=False)
    assert gap.expect in failed_names(report), describe(report)
