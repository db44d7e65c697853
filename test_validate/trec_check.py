"""Evaluating exported TREC files with pytrec_eval and ir_measures, under the receipts' nine metric names.

Under the metric conventions the shipped contracts declare (the grade as nDCG's gain, MAP@10 over every relevant
document) trec_eval's measures are ours: ndcg_cut_10, recall_k, recip_rank on a run of at most ten results,
map_cut_10, success_k. A query absent from the run (no results) scores 0, as trec_eval -c would count it.
"""

from pathlib import Path
from typing import Any

import ir_measures
import pytrec_eval
from ir_measures import AP, RR, R, Success, nDCG

TREC_MEASURES = {"ndcg_cut.10", "recall.1,5,10", "recip_rank", "map_cut.10", "success.1,5,10"}
TREC_NAMES = {"ndcg_at_10": "ndcg_cut_10", "recall_at_1": "recall_1", "recall_at_5": "recall_5",
              "recall_at_10": "recall_10", "mrr_at_10": "recip_rank", "map_at_10": "map_cut_10",
              "success_at_1": "success_1", "success_at_5": "success_5", "success_at_10": "success_10"}
IR_MEASURES = {"ndcg_at_10": nDCG @ 10, "recall_at_1": R @ 1, "recall_at_5": R @ 5, "recall_at_10": R @ 10,
               "mrr_at_10": RR @ 10, "map_at_10": AP @ 10, "success_at_1": Success @ 1, "success_at_5": Success @ 5,
               "success_at_10": Success @ 10}

DEPTH_TREC_NAMES = {"recall_at_100": "recall_100", "ndcg_at_100": "ndcg_cut_100"}
DEPTH_IR_MEASURES = {"recall_at_100": R @ 100, "ndcg_at_100": nDCG @ 100}

PerQuery = dict[str, dict[str, float]]


def read_run(path: Path) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        query, _, doc, _, score, _ = line.split()
        run.setdefault(query, {})[doc] = float(score)
    return run


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        query, _, doc, grade = line.split()
        qrels.setdefault(query, {})[doc] = int(grade)
    return qrels


def with_pytrec_eval(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]], *,
                     depth: bool = False) -> PerQuery:
    """The nine top-10 metrics of `run`, or (depth) Recall@100 and nDCG@100 of a depth-100 run."""
    measures, names = ({"recall.100", "ndcg_cut.100"}, DEPTH_TREC_NAMES) if depth else (TREC_MEASURES, TREC_NAMES)
    found = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    return {query: {ours: (found[query][name] if query in found else 0.0) for ours, name in names.items()}
            for query in qrels}


def with_ir_measures(qrels_path: Path, run_path: Path, *, depth: bool = False) -> PerQuery:
    read_qrels_file: Any = ir_measures.read_trec_qrels  # ir_measures' own TREC readers (untyped)
    read_run_file: Any = ir_measures.read_trec_run
    qrels = list(read_qrels_file(str(qrels_path)))
    run = list(read_run_file(str(run_path)))
    measures = DEPTH_IR_MEASURES if depth else IR_MEASURES
    by_measure = {str(measure): ours for ours, measure in measures.items()}
    out: PerQuery = {q.query_id: dict.fromkeys(measures, 0.0) for q in qrels}
    for metric in ir_measures.iter_calc(list(measures.values()), qrels, run):
        out[metric.query_id][by_measure[str(metric.measure)]] = float(metric.value)
    return out


def worst_gap(found: PerQuery, rows: list[dict[str, Any]], keys: Any = TREC_NAMES) -> float:
    """The largest |tool - receipt| over every query of `rows` and every metric in `keys`."""
    return max(abs(found[row["query_id"]][key] - float(row["metrics"][key])) for row in rows for key in keys)


def mean_gap(found: PerQuery, rows: list[dict[str, Any]], means: dict[str, Any], keys: Any = TREC_NAMES) -> float:
    """The largest |mean of the tool's values over every query - the aggregate's mean|."""
    return max(abs(sum(found[row["query_id"]][key] for row in rows) / len(rows) - float(means[key]))
               for key in keys)
