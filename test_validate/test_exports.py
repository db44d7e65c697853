"""`python -m harness export`: TREC runs and qrels that pytrec_eval and ir_measures evaluate to the receipts' own
per-query metrics and means (to 1e-9), for all three modes; a run with tied scores, which the original scores would
evaluate differently; the original scores and per-query CSVs reproducing the rows exactly."""

import csv
from pathlib import Path
from typing import Any

import pytest

from fixtures.cli import run_tiny_cli
from harness.publish.exports.exports import ExportRefused, export
from harness.publish.exports.trec_export import ExportError, qrels_text, run_text

from .support import MODES, SPLITS, RunCopy
from .trec_check import DEPTH_TREC_NAMES, mean_gap, read_qrels, read_run, with_ir_measures, with_pytrec_eval, worst_gap


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("mode", MODES)
def test_exported_runs_evaluate_to_the_receipt(run_copy: RunCopy, tmp_path: Path, mode: str, split: str) -> None:
    exports = tmp_path / "exports"
    written = {p.name for p in export(run_copy.out, exports)}
    assert {f"tiny-test-{m}-{s}.{ext}" for m in MODES for s in SPLITS for ext in ("run", "scores.tsv")} <= written
    assert {f"tiny-test-{s}.qrels" for s in SPLITS} | {f"tiny-test-per-query-{s}.csv" for s in SPLITS} <= written
    rows, aggregate = run_copy.rows(mode, split), run_copy.aggregate(mode, split)
    qrels_path, run_path = exports / f"tiny-test-{split}.qrels", exports / f"tiny-test-{mode}-{split}.run"
    for found in (with_pytrec_eval(read_qrels(qrels_path), read_run(run_path)), with_ir_measures(qrels_path, run_path)):
        assert worst_gap(found, rows) <= 1e-9
        assert mean_gap(found, rows, aggregate["metrics"]) <= 1e-9
    depth_path = exports / f"tiny-test-{mode}-{split}.depth100.run"
    for found in (with_pytrec_eval(read_qrels(qrels_path), read_run(depth_path), depth=True),
                  with_ir_measures(qrels_path, depth_path, depth=True)):
        assert worst_gap(found, rows, DEPTH_TREC_NAMES) <= 1e-9
        assert mean_gap(found, rows, aggregate["metrics"], DEPTH_TREC_NAMES) <= 1e-9
    scores = list(csv.DictReader((exports / f"tiny-test-{mode}-{split}.scores.tsv").open(encoding="utf-8"),
                                 delimiter="\t"))
    assert [(s["query_id"], int(s["rank"]), s["doc_id"], float(s["score"])) for s in scores] == [
        (row["query_id"], r["rank"], r["doc_id"], r["score"]) for row in rows for r in row["results"]]
    table = [line for line in csv.DictReader((exports / f"tiny-test-per-query-{split}.csv").open(encoding="utf-8"))
             if line["mode"] == mode]
    assert [line["query_id"] for line in table] == [row["query_id"] for row in rows]
    for line, row in zip(table, rows, strict=True):
        assert {key: float(line[key]) for key in row["metrics"]} == row["metrics"]
        assert float(line["latency_ms"]) == row["latency_ms"] and line["failed"] == "false"


def _row(results: list[tuple[str, float]], qrels: dict[str, int]) -> dict[str, Any]:
    return {"query_id": "q1", "qrels": qrels, "ranked_doc_ids": [doc for doc, _ in results],
            "results": [{"rank": rank, "doc_id": doc, "score": score} for rank, (doc, score) in
                        enumerate(results, start=1)]}


def test_tied_scores_evaluate_as_the_receipt_ranks_them(tmp_path: Path) -> None:
    """The receipt breaks ties by doc id ascending (d2 at rank 2); trec_eval by doc id descending (d4, d3, d2)."""
    row = _row([("d1", 2.0), ("d2", 1.0), ("d3", 1.0), ("d4", 1.0)], {"d2": 1})
    (tmp_path / "tied.qrels").write_text(qrels_text([row]), encoding="utf-8")
    (tmp_path / "tied.run").write_text(run_text([row], "tied"), encoding="utf-8")
    assert (tmp_path / "tied.run").read_text(encoding="utf-8").splitlines() == [
        "q1 Q0 d1 1 4 tied", "q1 Q0 d2 2 3 tied", "q1 Q0 d3 3 2 tied", "q1 Q0 d4 4 1 tied"]
    original = {"q1": {doc: score for doc, score in [("d1", 2.0), ("d2", 1.0), ("d3", 1.0), ("d4", 1.0)]}}
    qrels = read_qrels(tmp_path / "tied.qrels")
    assert with_pytrec_eval(qrels, original)["q1"]["mrr_at_10"] == 0.25  # what the original scores would give
    assert with_pytrec_eval(qrels, read_run(tmp_path / "tied.run"))["q1"]["mrr_at_10"] == 0.5
    assert with_ir_measures(tmp_path / "tied.qrels", tmp_path / "tied.run")["q1"]["mrr_at_10"] == 0.5
    assert with_ir_measures(tmp_path / "tied.qrels", tmp_path / "tied.run")["q1"]["ndcg_at_10"] == pytest.approx(
        1 / 1.584962500721156, abs=1e-12)


def test_ids_the_formats_cannot_carry_and_existing_exports_are_refused(run_copy: RunCopy, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ExportError, match="whitespace"):
        run_text([_row([("d 1", 1.0)], {"d 1": 1})], "tag")
    export(run_copy.out, tmp_path / "exports")
    with pytest.raises(ExportRefused, match="never overwritten"):
        export(run_copy.out, tmp_path / "exports")
    assert export(run_copy.out, tmp_path / "exports", replace=True)
    outcome = run_tiny_cli(["export", "--output-dir", str(tmp_path / "missing")], capsys)
    assert outcome.code == 2 and outcome.err.startswith("error: --output-dir") and len(outcome.err.splitlines()) == 1
    outcome = run_tiny_cli(["export", "--output-dir", str(tmp_path)], capsys)
    assert outcome.code == 2 and "holds no split with its modes' aggregates" in outcome.err
    outcome = run_tiny_cli(["export", "--output-dir", str(run_copy.out), "--split", "all"], capsys)
    assert outcome.code == 2 and "lacks tiny-test-fts_only-all.aggregate.json" in outcome.err
    (tmp_path / "a-file").write_text("x")
    outcome = run_tiny_cli(["export", "--output-dir", str(run_copy.out), "--export-dir", str(tmp_path / "a-file")],
                           capsys)
    assert outcome.code == 2 and "is a file" in outcome.err
    outcome = run_tiny_cli(["export", "--output-dir", str(run_copy.out), "--export-dir", str(tmp_path / "new")],
                           capsys)
    assert outcome.code == 0 and "exported 45 files" in outcome.out, outcome.err
