"""Ties are broken by doc id, ascending, whatever order the store keeps its documents in, and the validator agrees.

The tiny corpus is stored in doc-id order, so a tie broken by storage order would pass unseen there. This corpus adds
twins and documents that tie in fusion, and cuts at top_k 3 with a candidate depth of 3:

- d11 is a twin of d01 and d14 a twin of d07 (equal BM25 scores, equal vectors). q1 ranks d01 and d11 first and
  second (a tie inside the results); q4 ranks d07 third, so d07 and d14 tie at the cut, d14 left out;
- d12 and d13 hold the query q7's only lexical term beyond the semantic text's cut (their vectors are about
  basalt and Saturn), so for q7 the lexical lane holds d12 and d13 while the dense lane ranks three other
  documents: each lexical rank fuses to the same score as the dense lane's document at that rank, a tie at rank
  1 inside the results and one at the cut (rank 3), where the dense lane's document (the smaller doc id) stays;
- q8 is there for the split: with 7 of 8 queries in calibration, q1, q4 and q7 are all calibration queries.

The store is built in reverse doc-id order, so a storage-order tie rule would put the larger doc id first, or keep
it at the cut, in every tie.
"""

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from fixtures.archives import tiny_archive, tiny_contract, tiny_members
from harness.embedding.embedders.local import LocalEmbedder
from harness.evaluation.run_split import Evaluation, run_split
from harness.fixture.build import build_fixture
from harness.fixture.corpus_fixture import load_fixture
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.store.store import build_store
from harness.validator.core.report import PASS
from harness.validator.pipeline import validate

from . import forger
from .support import GIT_CHECKS, MODES, CleanRun, Row, RunCopy, describe, failed_names, sha256_bytes

CORPUS, QUERIES, QRELS = "tiny/corpus.jsonl", "tiny/queries.jsonl", "tiny/qrels/test.tsv"
TOKEN = "zyxcorp"
BASALT = "Basaltic lava flows cool into columnar joints as the crust of the volcano contracts. " * 10
SATURN = "The rings of Saturn are made of countless particles of water ice orbiting the planet. " * 12
QUERY = f"{TOKEN} espresso wakefulness"
TOP_K = 3
CONFIG = SearchConfig(top_k=TOP_K, hybrid_candidate_depth=TOP_K)
REPLAYS = {"fts_only": ("rows.order", "replay.lexical"), "vector_only": ("rows.order", "replay.dense"),
           "hybrid": ("rows.fusion", "replay.lexical", "replay.dense", "replay.fusion")}
CUT_CHECK = {"fts_only": "replay.lexical", "vector_only": "replay.dense", "hybrid": "replay.fusion"}
CONSTRUCTED_CORPUS = {"corpus.pinned", "corpus.contract"}  # the pins refuse a corpus made for a test


def _members() -> dict[str, bytes]:
    members = tiny_members()
    documents = {d["_id"]: d for d in map(json.loads, members[CORPUS].decode("utf-8").splitlines())}
    extra = [{**documents["d01"], "_id": "d11"},
             {"_id": "d12", "title": "Columnar basalt", "text": BASALT + TOKEN, "metadata": {}},
             {"_id": "d13", "title": "Saturn's rings", "text": SATURN + TOKEN, "metadata": {}},
             {**documents["d07"], "_id": "d14"}]
    members[CORPUS] += "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in extra).encode("utf-8")
    queries = [{"_id": "q7", "text": QUERY, "metadata": {}},
               {"_id": "q8", "text": "Coffee late in the day delays sleep.", "metadata": {}}]
    members[QUERIES] += "".join(json.dumps(q) + "\n" for q in queries).encode("utf-8")
    members[QRELS] += b"q7\td12\t1\r\nq8\td10\t1\r\n"
    return members


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, local_embedder: LocalEmbedder) -> dict[str, CleanRun]:
    """The calibration runs of the three modes over one fixture, from a store in reverse doc-id order ("reverse")
    and from one in doc-id order ("forward")."""
    root = tmp_path_factory.mktemp("ties")
    members = _members()
    contract = dataclasses.replace(
        tiny_contract(), documents=14, test_queries=8, test_qrel_pairs=10, top_k=TOP_K, calibration_count=7,
        pinned_payload_sha256={name: sha256_bytes(members[name]) for name in (CORPUS, QUERIES, QRELS)})
    report = build_fixture(contract, out=root / "fixture" / "ties.json", work_dir=root / "work",
                           embedder=local_embedder, progress=False,
                           archive=tiny_archive(root / "ties.zip", {n: members[n] for n in (CORPUS, QUERIES, QRELS)}))
    fixture = load_fixture(report.fixture)
    count = len(fixture.data["documents"])
    made = {}
    for name, order in (("reverse", list(reversed(range(count)))), ("forward", list(range(count)))):
        store, _ = build_store(root / name / "store", fixture, contract.namespace, CONFIG.lexical,
                               insertion_order=order)
        out = root / name / "out"
        run_split(Evaluation(corpus=fixture.path, store_dir=store.directory, output_dir=out, split="calibration",
                             config=CONFIG, argv=("pytest", "test_ties")), contract)
        made[name] = CleanRun(root=root / name, fixture_path=fixture.path, store_dir=store.directory, out=out)
    stored = _fact_ids(made["reverse"])
    by_fact = sorted(stored, key=stored.__getitem__)
    assert by_fact == sorted(by_fact, reverse=True), f"the store is not in reverse doc-id order: {by_fact}"
    return made


def _fact_ids(run: CleanRun) -> dict[str, int]:
    mapping: dict[str, int] = json.loads((run.store_dir / "mapping.json").read_text(encoding="utf-8"))["doc_to_fact"]
    return mapping


def _rows(run: CleanRun, mode: str) -> dict[str, Row]:
    lines = run.rows_path(mode, "calibration").read_bytes().splitlines()
    return {row["query_id"]: row for row in map(json.loads, lines)}


def _ties(row: Row) -> list[list[str]]:
    """The doc ids of each group of two or more results with exactly equal scores, in the row's order."""
    groups: dict[float, list[str]] = {}
    for result in row["results"]:
        groups.setdefault(result["score"], []).append(result["doc_id"])
    return [ids for ids in groups.values() if len(ids) > 1]


def _left_at_the_cut(runs: dict[str, CleanRun], mode: str) -> tuple[str, str, dict[str, Any]]:
    """The query whose cut falls inside a tie, the document the doc-id rule leaves out there, and that document's
    lane evidence as the row would state it had it been kept."""
    if mode == "hybrid":
        lexical = _rows(runs["reverse"], "fts_only")["q7"]["results"][1]
        return "q7", lexical["doc_id"], {"lexical": lexical["lanes"]["lexical"], "dense": {"rank": None, "score": None}}
    lane = "lexical" if mode == "fts_only" else "dense"
    kept = _rows(runs["reverse"], mode)["q4"]["results"][-1]
    return "q4", "d14", {lane: kept["lanes"][lane]}


@pytest.mark.real_model
@pytest.mark.parametrize("mode", MODES)
def test_ties_are_broken_by_doc_id_in_reverse_storage_order(runs: dict[str, CleanRun], mode: str) -> None:
    rows = _rows(runs["reverse"], mode)
    ties = {query: _ties(row) for query, row in rows.items() if _ties(row)}
    assert ties, f"the corpus was built to produce {mode} ties, and none occurred: {rows}"
    for query, groups in ties.items():
        assert all(ids == sorted(ids) for ids in groups), f"{mode} {query}: tied results {groups} not by doc id"
    query, left_out, _ = _left_at_the_cut(runs, mode)
    cut = rows[query]["results"][-1]
    assert left_out > cut["doc_id"] and left_out not in rows[query]["ranked_doc_ids"], rows[query]
    if mode == "hybrid":  # the cut is a tie: the left-out lexical rank fuses exactly as the kept dense rank
        rank = 2
        assert cut["lanes"]["dense"]["rank"] == rank and cut["lanes"]["lexical"]["rank"] is None, cut
        assert _rows(runs["reverse"], "fts_only")[query]["results"][rank - 1]["doc_id"] == left_out
    else:  # the twins tie wherever both are ranked: q6 ranks them first and second
        assert cut["doc_id"] == "d07" and ["d07", "d14"] in _ties(rows["q6"]), (cut, rows["q6"])
    # the same rankings from a store in doc-id order (float32 scores may differ in the last place: BLAS sums a row's
    # products in an order that can depend on where the row is stored)
    forward = _rows(runs["forward"], mode)
    assert {q: row["ranked_doc_ids"] for q, row in rows.items()} == {q: r["ranked_doc_ids"] for q, r in forward.items()}
    for query, row in rows.items():
        assert [r["score"] for r in row["results"]] == pytest.approx([r["score"] for r in forward[query]["results"]],
                                                                      rel=1e-6), query


@pytest.mark.real_model
@pytest.mark.parametrize("mode", MODES)
def test_the_validator_agrees_in_reverse_storage_order(runs: dict[str, CleanRun], mode: str) -> None:
    """Every check passes but the pins, which refuse a constructed corpus as they refuse any dataset they do not
    hold (the tie rule is what is tested here)."""
    report = validate(runs["reverse"].aggregate_path(mode, "calibration"), embeddings=False)
    assert failed_names(report) - GIT_CHECKS == CONSTRUCTED_CORPUS, describe(report)
    assert all(c.status == PASS for c in report.checks if c.name in REPLAYS[mode]), describe(report)


@pytest.mark.real_model
@pytest.mark.parametrize("mode", MODES)
def test_the_validator_refuses_a_tie_broken_by_storage_order(runs: dict[str, CleanRun], mode: str,
                                                              tmp_path: Path) -> None:
    copy = RunCopy.make(runs["reverse"], tmp_path)
    rows = copy.rows(mode, "calibration")
    row = next(r for r in rows if _ties(r))
    first, second = (i for i, r in enumerate(row["results"]) if r["doc_id"] in _ties(row)[0][:2])
    results = row["results"]
    results[first], results[second] = results[second], results[first]
    if mode != "hybrid":  # the lane evidence follows the position, as the run would have written it
        results[first]["lanes"], results[second]["lanes"] = results[second]["lanes"], results[first]["lanes"]
    forger.reseal_row(row)
    forger.write_forged(copy, mode, "calibration", rows)
    report = validate(copy.aggregate_path(mode, "calibration"), embeddings=False)
    assert REPLAYS[mode][0] in failed_names(report), describe(report)


@pytest.mark.real_model
@pytest.mark.parametrize("mode", MODES)
def test_the_validator_refuses_a_cut_made_by_storage_order(runs: dict[str, CleanRun], mode: str,
                                                            tmp_path: Path) -> None:
    """The last result replaced by the tied document the doc-id rule leaves out (stored before it), with that
    document's own lane evidence and the same score: every order the rows state still holds."""
    copy = RunCopy.make(runs["reverse"], tmp_path)
    query, left_out, lanes = _left_at_the_cut(runs, mode)
    rows = copy.rows(mode, "calibration")
    row = next(r for r in rows if r["query_id"] == query)
    last = row["results"][-1]
    if mode == "hybrid":
        lanes["fusion"] = last["lanes"]["fusion"]
    last.update(doc_id=left_out, fact_id=_fact_ids(runs["reverse"])[left_out], lanes=lanes)
    forger.reseal_row(row)
    forger.write_forged(copy, mode, "calibration", rows)
    report = validate(copy.aggregate_path(mode, "calibration"), embeddings=False)
    assert CUT_CHECK[mode] in failed_names(report), describe(report)
