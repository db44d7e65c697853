"""Metric definitions: hand-computed cases, edge cases, and agreement with trec_eval via ir_measures."""

import math
import random

import ir_measures
import pytest
from ir_measures import AP, RR, R, Success, nDCG

from harness.evaluation.measures.latency import nearest_rank
from harness.evaluation.measures.metrics import METRIC_KEYS, mean_metrics, query_metrics

QRELS = {"a": 1, "b": 1, "c": 0}
FILLER = [f"x{i}" for i in range(20)]


def test_no_hit_scores_zero_everywhere() -> None:
    assert set(query_metrics(FILLER[:10], QRELS).values()) == {0.0}


def test_empty_ranking_scores_zero_everywhere() -> None:
    assert set(query_metrics([], QRELS).values()) == {0.0}


def test_query_without_relevant_documents_scores_zero() -> None:
    assert set(query_metrics(["c", "a"], {"c": 0}).values()) == {0.0}


def test_hit_at_rank_1() -> None:
    metrics = query_metrics(["a", *FILLER[:9]], {"a": 1})
    assert metrics == dict.fromkeys(METRIC_KEYS, 1.0)


def test_hit_at_rank_10_counts_and_rank_11_does_not() -> None:
    at_10 = query_metrics([*FILLER[:9], "a"], {"a": 1})
    assert at_10["ndcg_at_10"] == pytest.approx(1 / math.log2(11))
    assert at_10["mrr_at_10"] == pytest.approx(0.1)
    assert at_10["map_at_10"] == pytest.approx(0.1)
    assert (at_10["recall_at_10"], at_10["success_at_10"], at_10["recall_at_5"], at_10["success_at_1"]) == (1, 1, 0, 0)
    at_11 = query_metrics([*FILLER[:10], "a"], {"a": 1})
    assert set(at_11.values()) == {0.0}


def test_several_relevant_hand_computed() -> None:
    # relevant a, b, d; ranking: a x b x x x x x x x ; d never retrieved
    ranking = ["a", "x0", "b", *FILLER[1:8]]
    metrics = query_metrics(ranking, {"a": 1, "b": 1, "d": 1})
    ideal = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert metrics["ndcg_at_10"] == pytest.approx((1 + 1 / math.log2(4)) / ideal)
    assert metrics["recall_at_1"] == pytest.approx(1 / 3)
    assert metrics["recall_at_5"] == pytest.approx(2 / 3)
    assert metrics["mrr_at_10"] == 1.0
    assert metrics["map_at_10"] == pytest.approx((1 / 1 + 2 / 3) / 3)
    assert metrics["success_at_1"] == 1.0


def test_graded_gain_is_exponential() -> None:
    metrics = query_metrics(["b", "a"], {"a": 2, "b": 1})
    ideal = 3 + 1 / math.log2(3)
    assert metrics["ndcg_at_10"] == pytest.approx((1 + 3 / math.log2(3)) / ideal)


def test_map_divides_by_min_relevant_and_10() -> None:
    qrels = {f"r{i}": 1 for i in range(12)}
    ranking = [f"r{i}" for i in range(10)]
    assert query_metrics(ranking, qrels)["map_at_10"] == 1.0


def test_duplicate_ids_in_a_ranking_are_refused() -> None:
    with pytest.raises(ValueError, match="more than once"):
        query_metrics(["a", "a"], QRELS)


def test_mean_counts_failed_queries_as_zero() -> None:
    rows = [query_metrics(["a"], {"a": 1}), query_metrics([], {"a": 1})]
    assert mean_metrics(rows)["ndcg_at_10"] == 0.5
    with pytest.raises(ValueError):
        mean_metrics([])


@pytest.mark.parametrize(("q", "expected"), [(0.0, 1), (0.5, 2), (0.95, 4), (1.0, 4), (0.26, 2), (0.25, 1)])
def test_nearest_rank_percentile(q: float, expected: float) -> None:
    assert nearest_rank([4, 1, 3, 2], q) == expected


def test_nearest_rank_single_value_and_errors() -> None:
    assert nearest_rank([7.5], 0.95) == 7.5
    with pytest.raises(ValueError):
        nearest_rank([], 0.5)
    with pytest.raises(ValueError):
        nearest_rank([1.0], 1.5)


TREC = {
    "ndcg_at_10": nDCG @ 10, "recall_at_1": R @ 1, "recall_at_5": R @ 5, "recall_at_10": R @ 10,
    "mrr_at_10": RR @ 10, "map_at_10": AP @ 10, "success_at_1": Success @ 1, "success_at_5": Success @ 5,
    "success_at_10": Success @ 10,
}


def _compare_with_trec_eval(rankings: dict[str, list[str]], qrels: dict[str, dict[str, int]]) -> None:
    run = [ir_measures.ScoredDoc(qid, doc_id, float(len(ranking) - rank))  # strictly decreasing: no ties
           for qid, ranking in rankings.items() for rank, doc_id in enumerate(ranking)]
    judged = [ir_measures.Qrel(qid, doc_id, grade) for qid, docs in qrels.items() for doc_id, grade in docs.items()]
    theirs: dict[tuple[str, str], float] = {}
    for metric in ir_measures.iter_calc(list(TREC.values()), judged, run):
        theirs[(metric.query_id, str(metric.measure))] = metric.value
    for qid, ranking in rankings.items():
        ours = query_metrics(ranking, qrels[qid])
        for key, measure in TREC.items():
            assert ours[key] == pytest.approx(theirs[(qid, str(measure))], abs=1e-12), (qid, key)


def test_agrees_with_trec_eval_on_edge_cases() -> None:
    qrels = {"hit1": {"a": 1}, "hit10": {"a": 1}, "hit11": {"a": 1}, "many": {"a": 1, "b": 1, "c": 1, "d": 1, "e": 1},
             "nohit": {"a": 1, "b": 1}}
    rankings = {
        "hit1": ["a", *FILLER[:9]],
        "hit10": [*FILLER[:9], "a"],
        "hit11": [*FILLER[:10], "a"],
        "many": ["x0", "a", "x1", "c", "e", "x2", "x3", "x4", "x5", "b", "d"],
        "nohit": FILLER[:10],
    }
    _compare_with_trec_eval(rankings, qrels)


def test_agrees_with_trec_eval_on_random_scifact_shaped_runs() -> None:
    rng = random.Random(20261130)
    docs = [f"d{i}" for i in range(60)]
    qrels, rankings = {}, {}
    for q in range(200):
        relevant = rng.sample(docs, rng.choice([1, 1, 1, 2, 3, 5]))
        qrels[f"q{q}"] = dict.fromkeys(relevant, 1)
        rankings[f"q{q}"] = rng.sample(docs, rng.choice([1, 5, 10, 10, 10, 15]))
    _compare_with_trec_eval(rankings, qrels)
