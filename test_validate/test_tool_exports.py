"""The exports other tools read, each loaded with the tool it is for: ranx and ir_measures evaluate the JSON runs
and qrels to the receipts' per-query values and means, pandas reads summary.csv to the aggregates' numbers, the
comparison's intervals and the runs' digests, the MTEB file's ndcg_at_10 is the aggregate's and says why it is not
MTEB's score, and the LaTeX table holds the headline numbers in a booktabs table with every receipt text escaped."""

import dataclasses
import json
import math
import re
from pathlib import Path
from typing import Any

import ir_measures
import pytest

from harness.evaluation.comparison.inputs import load_inputs
from harness.publish.exports.exports import export
from harness.publish.exports.latex_table import latex_escaped
from harness.publish.exports.mteb_result import HF_REVISION, mteb_document
from harness.publish.exports.ranx_json import ranx_qrels_text, ranx_run_text
from harness.publish.exports.summary_table import StaleComparison

from .comparisons import Compared
from .support import MODES, SPLITS, RunCopy, sha256_file
from .trec_check import IR_MEASURES, mean_gap, worst_gap

RANX_METRICS = {"ndcg_at_10": "ndcg@10", "recall_at_1": "recall@1", "recall_at_5": "recall@5",
                "recall_at_10": "recall@10", "mrr_at_10": "mrr@10", "map_at_10": "map@10",
                "success_at_1": "hit_rate@1", "success_at_5": "hit_rate@5", "success_at_10": "hit_rate@10"}


@pytest.fixture(scope="module")
def exported(compared_heldout: Compared, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The clean run (calibration and held-out, the held-out comparison beside them) exported once."""
    target = tmp_path_factory.mktemp("tool-exports")
    export(compared_heldout.copy.out, target)
    return target


def _with_ranx(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]],
               metrics: dict[str, str] = RANX_METRICS) -> "PerQuery":
    from ranx import Qrels, Run, evaluate

    found = evaluate(Qrels.from_dict(qrels), Run.from_dict(run), list(metrics.values()), return_mean=False)
    order = list(Run.from_dict(run).keys())
    return {query: {ours: float(found[name][i]) for ours, name in metrics.items()}
            for i, query in enumerate(order)}


PerQuery = dict[str, dict[str, float]]


def _with_ir_measures(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> PerQuery:
    by_measure = {str(measure): ours for ours, measure in IR_MEASURES.items()}
    found = {query: dict.fromkeys(IR_MEASURES, 0.0) for query in qrels}
    for metric in ir_measures.iter_calc(list(IR_MEASURES.values()), qrels, run):
        found[metric.query_id][by_measure[str(metric.measure)]] = float(metric.value)
    return found


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.extra("interop")
def test_ranx_and_ir_measures_read_the_json_runs_as_the_receipt(compared_heldout: Compared, exported: Path,
                                                                 mode: str, split: str) -> None:
    copy = compared_heldout.copy
    rows, aggregate = copy.rows(mode, split), copy.aggregate(mode, split)
    qrels = json.loads((exported / f"tiny-test-{split}.qrels.json").read_text(encoding="utf-8"))
    run = json.loads((exported / f"tiny-test-{mode}-{split}.ranx.json").read_text(encoding="utf-8"))
    assert list(run) == [row["query_id"] for row in rows] == list(qrels)
    assert all(list(run[row["query_id"]]) == row["ranked_doc_ids"] for row in rows)
    for found in (_with_ranx(qrels, run), _with_ir_measures(qrels, run)):
        assert worst_gap(found, rows) <= 1e-9
        assert mean_gap(found, rows, aggregate["metrics"]) <= 1e-9
    deep = json.loads((exported / f"tiny-test-{mode}-{split}.depth100.ranx.json").read_text(encoding="utf-8"))
    assert all(list(deep[row["query_id"]]) == row["depth_ranking"]["doc_ids"] for row in rows)
    by_query = _with_ranx(qrels, deep, {"recall_at_100": "recall@100", "ndcg_at_100": "ndcg@100"})
    assert worst_gap(by_query, rows, ("recall_at_100", "ndcg_at_100")) <= 1e-9
    assert mean_gap(by_query, rows, aggregate["metrics"], ("recall_at_100", "ndcg_at_100")) <= 1e-9


@pytest.mark.extra("interop")
def test_pandas_reads_the_summary_as_the_receipts_and_the_comparison(compared_heldout: Compared,
                                                                     exported: Path) -> None:
    copy = compared_heldout.copy
    import pandas

    table = pandas.read_csv(exported / "summary.csv")
    document = json.loads((exported / "summary.json").read_text(encoding="utf-8"))
    assert len(table) == len(document["rows"]) == len(MODES) * len(SPLITS)
    assert list(table.columns) == document["columns"]
    comparison = json.loads(compared_heldout.path.read_text(encoding="utf-8"))
    for line, listed in zip(table.to_dict("records"), document["rows"], strict=True):
        aggregate = copy.aggregate(line["mode"], line["split"])
        receipt = aggregate["receipt"]
        for metric, mean in aggregate["metrics"].items():
            if not isinstance(mean, float) or metric in ("recall_at_100", "ndcg_at_100"):
                continue  # the depth-100 metrics have no interval: comparisons hold the top-10 metrics (below)
            assert line[metric] == listed[metric] == mean
            interval = comparison["modes"][line["mode"]][metric] if line["split"] == "heldout" else None
            for end in ("ci_low", "ci_high"):
                if interval is None:
                    assert math.isnan(line[f"{metric}_{end}"]) and listed[f"{metric}_{end}"] is None
                else:
                    assert line[f"{metric}_{end}"] == listed[f"{metric}_{end}"] == interval[end]
        assert line["latency_p50_ms"] == aggregate["metrics"]["latency_ms"]["p50"]
        assert line["latency_p95_ms"] == aggregate["metrics"]["latency_ms"]["p95"]
        assert line["recall_at_100"] == listed["recall_at_100"] == aggregate["metrics"]["recall_at_100"]
        assert line["ndcg_at_100"] == listed["ndcg_at_100"] == aggregate["metrics"]["ndcg_at_100"]
        assert (line["verdict"] == "ELIGIBLE") is (line["split"] == "heldout")
        assert line["verdict"] in ("ELIGIBLE", "not validated") and listed["verdict"] == line["verdict"]
        assert line["aggregate_sha256"] == sha256_file(copy.aggregate_path(line["mode"], line["split"]))
        assert line["rows_sha256"] == aggregate["per_query_sha256"]
        assert line["fixture_sha256"] == receipt["corpus"]["fixture_sha256"]
        assert line["config_sha256"] == receipt["retrieval"]["config_sha256"]
        assert line["store_sha256"] == receipt["store"]["store_sha256"]
        assert line["system"] == receipt["system"]["name"] and line["query_count"] == aggregate["row_count"]
        assert listed["ir_datasets_id"] is None and math.isnan(line["ir_datasets_id"])  # the tiny corpus has none


@pytest.mark.parametrize("mode", MODES)
def test_the_mteb_file_holds_the_aggregate_and_says_why_it_is_not_mteb_s_score(compared_heldout: Compared,
                                                                             exported: Path, mode: str) -> None:
    document = json.loads((exported / f"tiny-test-{mode}-heldout.mteb.json").read_text(encoding="utf-8"))
    aggregate = compared_heldout.copy.aggregate(mode, "heldout")
    # MTEB's task metadata is SciFact's alone: a run of another dataset names no task rather than SciFact's
    assert document["task_name"] is None and document["dataset_revision"] is None
    assert document["harness"]["hf_dataset"] is None
    assert list(document["scores"]) == ["heldout"]  # never MTEB's test split
    (scores,) = document["scores"]["heldout"]
    assert scores["ndcg_at_10"] == scores["main_score"] == aggregate["metrics"]["ndcg_at_10"]
    assert scores["recall_at_10"] == aggregate["metrics"]["recall_at_10"] and scores["hf_subset"] == "default"
    assert scores["recall_at_100"] == aggregate["metrics"]["recall_at_100"]
    assert scores["ndcg_at_100"] == aggregate["metrics"]["ndcg_at_100"]
    harness = document["harness"]
    assert harness["comparable_to_mteb"] is False and harness["aggregate_sha256"] == sha256_file(
        compared_heldout.copy.aggregate_path(mode, "heldout"))
    reasons = " ".join(harness["why_not_comparable"])
    assert "not BEIR SciFact" in reasons and "of the 6 test queries" in reasons
    assert "'search_query: '" in reasons and "mteb-parity" in reasons


def test_only_a_parity_run_of_every_scifact_query_is_filed_as_mteb_s_test_score(compared_heldout: Compared) -> None:
    (entry, *_) = load_inputs(compared_heldout.copy.out, "heldout", ("vector_only",))
    aggregate = json.loads(json.dumps(entry.aggregate))
    receipt = aggregate["receipt"]
    receipt["corpus"]["ir_datasets_id"] = "beir/scifact/test"
    receipt["split"]["selected_count"] = receipt["split"]["total_count"]
    receipt["profile"].update(name="mteb-parity", is_contract=False, max_code_points=None, document_prefix="",
                              query_prefix="")
    parity = mteb_document(dataclasses.replace(entry, aggregate=aggregate))
    assert parity["harness"]["comparable_to_mteb"] is True and parity["harness"]["why_not_comparable"] == []
    assert parity["task_name"] == "SciFact" and parity["dataset_revision"] == HF_REVISION
    assert parity["scores"]["test"][0]["main_score"] == entry.aggregate["metrics"]["ndcg_at_10"]
    lexical = mteb_document(dataclasses.replace(entry, mode="fts_only", aggregate=aggregate))
    assert lexical["harness"]["comparable_to_mteb"] is False and list(lexical["scores"]) == ["heldout"]


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.removesuffix(r"\\").split("&")]


def test_the_latex_table_is_booktabs_with_the_headline_numbers(compared_heldout: Compared, exported: Path) -> None:
    lines = (exported / "tiny-test-headline.tex").read_text(encoding="utf-8").splitlines()
    body = [line for line in lines if not line.startswith("%")]
    assert body[0] == r"\begin{table}[t]" and body[-1] == r"\end{table}"
    assert [line for line in body if re.fullmatch(r"\\(toprule|midrule|bottomrule)", line)] == [
        r"\toprule", r"\midrule", r"\midrule", r"\bottomrule"]
    text = "\n".join(body)
    assert text.count("{") == text.count("}") and r"\begin{tabular}{llrrrr}" in body
    header = body.index(r"\toprule") + 1
    assert _cells(body[header]) == ["Split", "Mode", "Queries", "nDCG@10", "Recall@10", "MRR@10"]
    data = [_cells(line) for line in body[header + 1:] if line.endswith(r"\\")]
    expected = [[split, mode.replace("_", r"\_"), str(aggregate["row_count"]),
                 *(f"{aggregate['metrics'][key]:.4f}" for key in ("ndcg_at_10", "recall_at_10", "mrr_at_10"))]
                for split in SPLITS for mode in MODES
                for aggregate in [compared_heldout.copy.aggregate(mode, split)]]
    assert data == expected
    assert latex_escaped("a_b}{\\x$%&#^~\n") == (r"a\_b\}\{\textbackslash{}x\$\%\&\#\^{}\textasciitilde{}"
                                                  r"\textbackslash{}u000a")


def test_a_comparison_of_other_runs_refuses_the_export(run_copy: RunCopy, compared_heldout: Compared,
                                                        tmp_path: Path) -> None:
    document: dict[str, Any] = json.loads(compared_heldout.path.read_text(encoding="utf-8"))
    document["inputs"][0]["aggregate_sha256"] = "sha256:" + "0" * 64
    (run_copy.out / compared_heldout.path.name).write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(StaleComparison, match=r"compares other runs .* --replace"):
        export(run_copy.out, tmp_path / "exports")
    assert not (tmp_path / "exports").exists()


@pytest.mark.extra("interop")
def test_tied_scores_reach_ranx_in_the_receipt_s_order_whatever_the_key_order() -> None:
    """The receipt ranks d4 before d3 and d2 at one score. ranx breaks ties by the order it reads the documents in,
    which a JSON file need not keep (sorted keys, another writer): the exported scores do not depend on it."""
    results = [("d1", 2.0), ("d4", 1.0), ("d3", 1.0), ("d2", 1.0)]
    row = {"query_id": "q1", "qrels": {"d4": 1}, "results": [{"rank": rank, "doc_id": doc, "score": score}
                                                             for rank, (doc, score) in enumerate(results, start=1)]}
    qrels = json.loads(ranx_qrels_text([row]))
    run = json.loads(ranx_run_text([row]))
    assert run == {"q1": {"d1": 4, "d4": 3, "d3": 2, "d2": 1}}
    assert _with_ranx(qrels, {"q1": dict(sorted(run["q1"].items()))})["q1"]["mrr_at_10"] == 0.5
    assert _with_ranx(qrels, {"q1": dict(sorted(results))})["q1"]["mrr_at_10"] == 0.25  # the original scores
