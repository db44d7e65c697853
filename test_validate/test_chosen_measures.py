"""Measures chosen by name for a run (`--measure`), on the graded collection (grades 2, 1, 0 and -1; a collection of
one's own, deeper than 100 documents) with a run file whose scores tie: every family, cutoffs from 1 to 100 and a
relevance threshold, per query equal to pytrec_eval (ir_measures for RR@k and Judged@k, which pytrec_eval does not
hold), computed by the harness as it writes the rows and by the validator on its own; a forged value or mean fails
`rows.measures` or `aggregate.measures`."""

import json
from pathlib import Path
from typing import Any

import ir_measures
import pytest
import pytrec_eval

from fixtures.deep_collection import deep_fixture
from harness.corpus.contract import Contract
from harness.corpus.split import select
from harness.embedding.embedders.local import LocalEmbedder
from harness.evaluation.run_split import Evaluation, run_split
from harness.fixture.corpus_fixture import CorpusFixture
from harness.validator.pipeline import validate

from . import forger

CHOSEN = ("nDCG@1", "nDCG@3", "nDCG@20", "nDCG@100", "P@1", "P@5", "P@20", "P(rel=2)@10", "R@3", "R@50", "R@100",
          "R(rel=2)@20", "AP@5", "AP@100", "AP(rel=2)@10", "RR@3", "RR@100", "RR(rel=2)@10", "Success@3",
          "Success@20", "Success(rel=2)@5", "Judged@5", "Judged@100")
TREC = {"nDCG": "ndcg_cut", "P": "P", "R": "recall", "AP": "map_cut", "Success": "success"}
GIT = {"source.git", "source.clean"}
CHOSEN_VIOLATIONS = {"rows.measures": "test_a_forged_value_or_mean_fails_its_check_alone",
                     "aggregate.measures": "test_a_forged_value_or_mean_fails_its_check_alone"}


def _tied_run(fixture: CorpusFixture, short: str) -> dict[str, dict[str, float]]:
    """Every document for every query, scored by the words they share (capped, so that many tie); but the query
    `short` ranks only three documents, fewer than most cutoffs (P@5 is then what it found of 5, not of 3)."""
    run: dict[str, dict[str, float]] = {}
    for query in fixture.data["queries"]:
        words = set(query["text"].lower().split())
        documents = fixture.data["documents"]
        if query["query_id"] == short:  # one it judges relevant, and two others
            relevant = next(d for d in documents if query["qrels"].get(d["doc_id"], 0) >= 1)
            documents = [relevant, *[d for d in documents if d is not relevant][:2]]
        for document in documents:
            shared = len(words & set(f"{document['title']} {document['text']}".lower().split()))
            run.setdefault(query["query_id"], {})[document["doc_id"]] = float(min(shared, 3))
    return run


@pytest.fixture(scope="module")
def graded(local_embedder: LocalEmbedder, tmp_path_factory: pytest.TempPathFactory
           ) -> tuple[Path, Contract, CorpusFixture, dict[str, dict[str, float]], Path]:
    root = tmp_path_factory.mktemp("graded")
    archive, contract, fixture = deep_fixture(root, local_embedder)
    calibration = select([query["query_id"] for query in fixture.data["queries"]], "calibration",
                         contract.calibration_count)
    run = _tied_run(fixture, calibration[0])
    path = root / "tied.trec"
    path.write_text("".join(f"{q} Q0 {d} 0 {s} tied\n" for q, docs in run.items() for d, s in docs.items()),
                    encoding="utf-8")
    run_split(Evaluation(corpus=fixture.path, store_dir=root / "store", output_dir=root / "out", split="calibration",
                         system="run-file", system_options=(("file", str(path)),), measures=CHOSEN),
              contract, fixture=fixture)
    return root / "out", contract, fixture, run, archive


def _untied(run: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """The run in trec_eval's order (score down, then doc id down), scored by rank: ir_measures' RR@k and Judged@k
    break ties otherwise (doc id up), so they are given the order trec_eval reads, without ties."""
    return {query: {doc: -float(rank) for rank, doc in enumerate(sorted(sorted(docs, reverse=True),
                                                                        key=lambda d: -docs[d]), start=1)}
            for query, docs in run.items()}


def _reference(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """Each chosen measure per query from pytrec_eval, and from ir_measures where pytrec_eval has none."""
    found: dict[str, dict[str, float]] = {query: {} for query in qrels}
    for name in CHOSEN:
        family, _, cutoff = name.partition("@")
        rel = 2 if "(rel=2)" in family else 1
        family = family.replace("(rel=2)", "")
        if family in TREC:
            measure = f"{TREC[family]}.{cutoff}"
            values = pytrec_eval.RelevanceEvaluator(qrels, {measure}, relevance_level=rel).evaluate(run)
            key = f"{TREC[family]}_{cutoff}"
            for query in qrels:
                found[query][name] = values[query][key] if query in values else 0.0
            continue
        parsed: Any = ir_measures.parse_measure(name)
        for query in qrels:
            found[query][name] = 0.0
        for metric in ir_measures.iter_calc([parsed], qrels, _untied(run)):
            found[metric.query_id][name] = float(metric.value)
    return found


def test_every_chosen_measure_equals_trec_eval_on_the_graded_collection(graded: Any) -> None:
    out, _, _, run, archive = graded
    rows = [json.loads(line) for line in (out / "deep-run_file-calibration.jsonl").read_text("utf-8").splitlines()]
    assert any(grade <= 0 for row in rows for grade in row["qrels"].values())  # grades 0 and -1 are judged
    qrels = {row["query_id"]: row["qrels"] for row in rows}
    reference = _reference(qrels, {q: run[q] for q in qrels})
    for row in rows:
        assert list(row["measures"]) == list(CHOSEN)
        for name in CHOSEN:
            assert row["measures"][name] == pytest.approx(reference[row["query_id"]][name], abs=1e-12), (
                row["query_id"], name)
    aggregate = json.loads((out / "deep-run_file-calibration.aggregate.json").read_text("utf-8"))
    assert aggregate["measures"]["names"] == list(CHOSEN)
    report = validate(out / "deep-run_file-calibration.aggregate.json", archive=archive)
    assert {c.name for c in report.failed} <= GIT, [c.line() for c in report.failed]
    assert {"rows.measures", "aggregate.measures"} <= {c.name for c in report.checks if c.status == "pass"}


def _forge(out: Path, tmp_path: Path, change: Any) -> Path:
    """A copy of the output directory with `change` applied to its rows and aggregate, every digest resealed."""
    import shutil

    from harness.evaluation.receipts.artifacts import rows_bytes
    from harness.hashing import sha256_bytes
    copy = Path(shutil.copytree(out, tmp_path / "out"))
    rows_path = copy / "deep-run_file-calibration.jsonl"
    aggregate_path = copy / "deep-run_file-calibration.aggregate.json"
    rows = [json.loads(line) for line in rows_path.read_text("utf-8").splitlines()]
    aggregate = json.loads(aggregate_path.read_text("utf-8"))
    change(rows, aggregate)
    data = rows_bytes(rows)
    rows_path.write_bytes(data)
    aggregate["per_query_sha256"] = sha256_bytes(data)
    aggregate_path.write_text(json.dumps(aggregate, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return aggregate_path


def _raise_one_value(rows: list[dict[str, Any]], aggregate: dict[str, Any]) -> None:
    rows[0]["measures"]["P@5"] = min(1.0, rows[0]["measures"]["P@5"] + 0.2)
    aggregate["measures"]["means"]["P@5"] = sum(r["measures"]["P@5"] for r in rows) / len(rows)


def _raise_a_mean(rows: list[dict[str, Any]], aggregate: dict[str, Any]) -> None:
    aggregate["measures"]["means"]["AP@100"] = min(1.0, aggregate["measures"]["means"]["AP@100"] + 0.01)


@pytest.mark.parametrize(("change", "check"), [(_raise_one_value, "rows.measures"),
                                               (_raise_a_mean, "aggregate.measures")])
def test_a_forged_value_or_mean_fails_its_check_alone(graded: Any, tmp_path: Path, change: Any, check: str) -> None:
    out, _, _, _, archive = graded
    report = validate(_forge(out, tmp_path, change), archive=archive)
    assert {c.name for c in report.failed} - GIT == {check}, [c.line() for c in report.failed]


def _deep_score_moved(rows: list[dict[str, Any]], aggregate: dict[str, Any]) -> None:
    """A score beyond the claim's top 10 changed, its order kept: only the run file says otherwise."""
    for row in rows:
        scores = row["depth_ranking"]["scores"]
        at = next((i for i in range(10, len(scores) - 1) if scores[i - 1] > scores[i] > scores[i + 1]
                   or (scores[i - 1] >= scores[i] > scores[i + 1] and scores[i] - scores[i + 1] > 0.5)), None)
        if at is not None:
            scores[at] = (scores[at] + scores[at + 1]) / 2
            forger.reseal_row(row)
            return
    raise AssertionError("no row has a depth-100 score beyond rank 10 that can move without reordering")


def test_a_score_beyond_the_claims_top_k_not_the_run_files_fails_ranking_run_file(graded: Any,
                                                                                   tmp_path: Path) -> None:
    out, _, _, _, archive = graded
    report = validate(_forge(out, tmp_path, _deep_score_moved), archive=archive)
    assert {c.name for c in report.failed} - GIT == {"ranking.run_file"}, [c.line() for c in report.failed]
    [check] = [c for c in report.failed if c.name == "ranking.run_file"]
    assert "the depth-100 ranking is not the run file's first 100" in str(check.found), check.line()


def test_a_ranking_shorter_than_the_cutoff_counts_against_the_cutoff(graded: Any) -> None:
    out, _, _, run, _ = graded
    rows = [json.loads(line) for line in (out / "deep-run_file-calibration.jsonl").read_text("utf-8").splitlines()]
    short = [row for row in rows if len(run[row["query_id"]]) == 3]
    assert len(short) == 1
    for row in short:
        found = sum(1 for doc in run[row["query_id"]] if row["qrels"].get(doc, 0) >= 1)
        assert found >= 1
        assert row["measures"]["P@5"] == pytest.approx(found / 5) and row["measures"]["P@20"] == pytest.approx(
            found / 20)
