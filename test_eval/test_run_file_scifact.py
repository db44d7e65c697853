"""On SciFact (the real archive and its fixture): a bm25s run written to a TREC file, as a user of another tool has
it, evaluated with `evaluate` on calibration, frozen, and on held-out; every row's metrics equal trec_eval's
(pytrec_eval; ir_measures for RR@10) on that run file, per query and in the mean; the validator's verdict is ranking
attested, and the held-out evaluation is a look in the held-out record."""

import json
from pathlib import Path
from typing import Any

import bm25s
import ir_measures
import pytest
import pytrec_eval
import Stemmer

from fixtures.cli import ROOT
from harness.cli.app import main
from harness.evaluation.history.heldout_record import read_record
from harness.evaluation.receipts.provenance import git_state
from harness.fixture.corpus_fixture import CorpusFixture
from harness.validator.pipeline import validate
from test_validate.trec_check import DEPTH_TREC_NAMES, TREC_NAMES, with_pytrec_eval

GIT = {"source.git", "source.clean"}
CHOSEN = {"P@5": "P.5", "nDCG@20": "ndcg_cut.20", "R@50": "recall.50", "AP@100": "map_cut.100",
          "Success@3": "success.3"}  # measures chosen by name, and trec_eval's for each
TOP10 = {key: name for key, name in TREC_NAMES.items() if key != "mrr_at_10"}  # recip_rank has no cut-off


def bm25s_trec_run(corpus: CorpusFixture, path: Path, depth: int = 100) -> dict[str, dict[str, float]]:
    """A bm25s run over every test query, written as TREC lines with the scores printed to six places."""
    documents = corpus.data["documents"]
    stemmer = Stemmer.Stemmer("english")
    retriever = bm25s.BM25(k1=1.2, b=0.75)
    texts = [f"{d['title']} {d['text']}".strip() for d in documents]
    retriever.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False)
    queries = corpus.data["queries"]
    tokens = bm25s.tokenize([q["text"] for q in queries], stopwords="en", stemmer=stemmer, show_progress=False)
    found, scores = retriever.retrieve(tokens, k=depth, show_progress=False)
    lines: list[str] = []
    run: dict[str, dict[str, float]] = {}
    for query, ids, values in zip(queries, found, scores, strict=True):
        for rank, (index, score) in enumerate(zip(ids, values, strict=True), start=1):
            doc_id, text = documents[int(index)]["doc_id"], f"{float(score):.6f}"
            lines.append(f"{query['query_id']} Q0 {doc_id} {rank} {text} bm25s\n")
            run.setdefault(query["query_id"], {})[doc_id] = float(text)
    path.write_text("".join(lines), encoding="utf-8")
    return run


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _rr_at_10(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> dict[str, float]:
    calc: Any = ir_measures.iter_calc
    found = {q: 0.0 for q in qrels}
    for metric in calc([ir_measures.RR @ 10], qrels, run):
        found[metric.query_id] = float(metric.value)
    return found


def _equal_to_trec_eval(rows: list[dict[str, Any]], aggregate: dict[str, Any], run: dict[str, dict[str, float]]
                        ) -> None:
    qrels = {row["query_id"]: row["qrels"] for row in rows}
    split_run = {query: run[query] for query in qrels if query in run}
    top = with_pytrec_eval(qrels, split_run)
    deep = with_pytrec_eval(qrels, split_run, depth=True)
    rr = _rr_at_10(qrels, split_run)
    for row in rows:
        query, metrics = row["query_id"], row["metrics"]
        for key in TOP10:
            assert metrics[key] == pytest.approx(top[query][key], abs=1e-12), (query, key)
        for key in DEPTH_TREC_NAMES:
            assert metrics[key] == pytest.approx(deep[query][key], abs=1e-12), (query, key)
        assert metrics["mrr_at_10"] == pytest.approx(rr[query], abs=1e-12), query
    for key in (*TOP10, *DEPTH_TREC_NAMES):
        mean = sum(deep[r["query_id"]][key] if key in DEPTH_TREC_NAMES else top[r["query_id"]][key]
                   for r in rows) / len(rows)
        assert aggregate["metrics"][key] == pytest.approx(mean, abs=1e-12), key


def _chosen_equal_to_trec_eval(rows: list[dict[str, Any]], run: dict[str, dict[str, float]]) -> None:
    qrels = {row["query_id"]: row["qrels"] for row in rows}
    found = pytrec_eval.RelevanceEvaluator(qrels, set(CHOSEN.values())).evaluate(
        {query: run[query] for query in qrels if query in run})
    for row in rows:
        for name, measure in CHOSEN.items():
            key = measure.replace(".", "_")
            expected = found[row["query_id"]][key] if row["query_id"] in found else 0.0
            assert row["measures"][name] == pytest.approx(expected, abs=1e-12), (row["query_id"], name)


@pytest.mark.real_data
def test_a_bm25s_trec_run_evaluates_on_scifact_as_trec_eval_counts_it(
        scifact_archive: Path, scifact_corpus: CorpusFixture, tmp_path: Path, own_heldout_record: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    run = bm25s_trec_run(scifact_corpus, tmp_path / "bm25s.trec")
    paths = ["--corpus", str(scifact_corpus.path), "--store-dir", str(tmp_path / "store"), "--output-dir",
             str(tmp_path / "out"), "--archive", str(scifact_archive)]
    clean = git_state(ROOT).get("dirty") is False  # a work tree with changes is recorded, and fails source.clean
    chosen = [part for name in CHOSEN for part in ("--measure", name)]
    assert main(["evaluate", str(tmp_path / "bm25s.trec"), *paths, "--split", "calibration", *chosen]) == (
        0 if clean else 1)
    assert ("ELIGIBLE (ranking attested)" if clean else "NOT ELIGIBLE (failed: source.clean)") in \
        capsys.readouterr().out
    assert main(["freeze", *paths, "--system", "run-file", "--allow-dirty"]) == 0
    assert main(["evaluate", *paths, "--split", "heldout", "--no-validate"]) == 0
    for split, count in (("calibration", 100), ("heldout", 200)):
        aggregate_path = tmp_path / "out" / f"scifact-run_file-{split}.aggregate.json"
        aggregate = json.loads(aggregate_path.read_text(encoding="utf-8"))
        rows = _rows(tmp_path / "out" / f"scifact-run_file-{split}.jsonl")
        assert len(rows) == count and aggregate["receipt"]["system"]["name"] == "bm25s"
        _equal_to_trec_eval(rows, aggregate, run)
        if split == "calibration":
            _chosen_equal_to_trec_eval(rows, run)
        report = validate(aggregate_path, archive=scifact_archive)
        assert {c.name for c in report.failed} <= (set() if clean else GIT) and not report.not_verified
        assert report.notes["ranking"]["producers"] == ["bm25s"]
        assert "ranking.attested" in {c.name for c in report.attestations}
        assert "embeddings.model" not in {c.name for c in report.checks}  # a run file's rankings read no vector
    record = read_record()
    assert record is not None and record.path == own_heldout_record
    [look] = record.entries
    assert (look["system"], look["mode"], look["split"]) == ("bm25s", "run_file", "heldout")
