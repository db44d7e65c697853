"""Metric definitions: hand-computed cases, edge cases, both conventions of each, and agreement with trec_eval
(through pytrec_eval and ir_measures) under the shipped contracts' declaration, graded judgements included."""

import math
import random

import ir_measures
import pytest
from ir_measures import AP, RR, R, Success, nDCG

from fixtures import graded_collection as graded
from fixtures.archives import tiny_contract
from harness.corpus.contract import scifact_contract
from harness.evaluation.measures.latency import nearest_rank
from harness.evaluation.measures.metrics import (
    METRIC_KEYS,
    Conventions,
    depth_metrics,
    mean_metrics,
    ndcg_at_k,
    query_metrics,
)

QRELS = {"a": 1, "b": 1, "c": 0}
FILLER = [f"x{i}" for i in range(20)]
TREC_EVAL = Conventions(ndcg_gain="grade", map_denominator="relevant")  # the shipped contracts' declaration
EXPONENTIAL = Conventions(ndcg_gain="exponential", map_denominator="relevant_within_k")


def metrics_of(ranking: list[str], qrels: dict[str, int]) -> dict[str, float]:
    return query_metrics(ranking, qrels, TREC_EVAL)


def test_no_hit_scores_zero_everywhere() -> None:
    assert set(metrics_of(FILLER[:10], QRELS).values()) == {0.0}


def test_empty_ranking_scores_zero_everywhere() -> None:
    assert set(metrics_of([], QRELS).values()) == {0.0}


@pytest.mark.parametrize("conventions", [TREC_EVAL, EXPONENTIAL])
def test_query_without_relevant_documents_scores_zero(conventions: Conventions) -> None:
    assert set(query_metrics(["c", "a"], {"c": 0}, conventions).values()) == {0.0}
    assert set(query_metrics(["c", "a", "b"], {"a": -1, "b": -2, "c": 0}, conventions).values()) == {0.0}


def test_hit_at_rank_1() -> None:
    metrics = metrics_of(["a", *FILLER[:9]], {"a": 1})
    assert metrics == dict.fromkeys(METRIC_KEYS, 1.0)


def test_hit_at_rank_10_counts_and_rank_11_does_not() -> None:
    at_10 = metrics_of([*FILLER[:9], "a"], {"a": 1})
    assert at_10["ndcg_at_10"] == pytest.approx(1 / math.log2(11))
    assert at_10["mrr_at_10"] == pytest.approx(0.1)
    assert at_10["map_at_10"] == pytest.approx(0.1)
    assert (at_10["recall_at_10"], at_10["success_at_10"], at_10["recall_at_5"], at_10["success_at_1"]) == (1, 1, 0, 0)
    at_11 = metrics_of([*FILLER[:10], "a"], {"a": 1})
    assert set(at_11.values()) == {0.0}


def test_several_relevant_hand_computed() -> None:
    # relevant a, b, d; ranking: a x b x x x x x x x ; d never retrieved
    ranking = ["a", "x0", "b", *FILLER[1:8]]
    metrics = metrics_of(ranking, {"a": 1, "b": 1, "d": 1})
    ideal = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert metrics["ndcg_at_10"] == pytest.approx((1 + 1 / math.log2(4)) / ideal)
    assert metrics["recall_at_1"] == pytest.approx(1 / 3)
    assert metrics["recall_at_5"] == pytest.approx(2 / 3)
    assert metrics["mrr_at_10"] == 1.0
    assert metrics["map_at_10"] == pytest.approx((1 / 1 + 2 / 3) / 3)
    assert metrics["success_at_1"] == 1.0


def test_graded_gain_is_the_grade() -> None:
    metrics = metrics_of(["b", "a"], {"a": 2, "b": 1})
    ideal = 2 + 1 / math.log2(3)
    assert metrics["ndcg_at_10"] == (1 + 2 / math.log2(3)) / ideal


def test_exponential_gain_is_two_to_the_grade_minus_one() -> None:
    metrics = query_metrics(["b", "a"], {"a": 2, "b": 1}, EXPONENTIAL)
    ideal = 3 + 1 / math.log2(3)
    assert metrics["ndcg_at_10"] == (1 + 3 / math.log2(3)) / ideal
    # grades 3 and 1 at ranks 2 and 1 of three judged relevant (3, 2, 1), a grade -1 at rank 3 gaining nothing
    qrels = {"a": 3, "b": 2, "c": 1, "n": -1}
    dcg = 1 + 7 / math.log2(3)
    assert ndcg_at_k(["c", "a", "n"], qrels, 10, EXPONENTIAL) == dcg / (7 + 3 / math.log2(3) + 1 / math.log2(4))


def test_map_divides_by_every_relevant_document_as_declared() -> None:
    qrels = {f"r{i}": 1 for i in range(12)}
    ranking = [f"r{i}" for i in range(10)]
    assert metrics_of(ranking, qrels)["map_at_10"] == 10 / 12


def test_map_relevant_within_k_divides_by_min_relevant_and_10() -> None:
    qrels = {f"r{i}": 1 for i in range(12)}
    assert query_metrics([f"r{i}" for i in range(10)], qrels, EXPONENTIAL)["map_at_10"] == 1.0
    # relevant at ranks 1 and 4 of 12: (1/1 + 2/4) / min(12, 10)
    ranking = ["r0", "x0", "x1", "r1", *FILLER[2:8]]
    assert query_metrics(ranking, qrels, EXPONENTIAL)["map_at_10"] == (1 + 2 / 4) / 10
    assert query_metrics(ranking, qrels, TREC_EVAL)["map_at_10"] == (1 + 2 / 4) / 12
    # fewer than ten relevant: both divisors are R
    assert query_metrics(ranking, {"r0": 1, "r1": 1, "r2": 1}, EXPONENTIAL)["map_at_10"] == (1 + 2 / 4) / 3


def test_negative_grades_gain_nothing_as_in_trec_eval() -> None:
    """pytrec_eval's own numbers for this query: the -1 at rank 1 is not relevant and gains nothing, in the
    ranking and in the ideal."""
    metrics = metrics_of(["d", "a", "c", "b", "x"], {"a": 2, "b": 1, "c": 0, "d": -1, "e": 3})
    assert (metrics["ndcg_at_10"], metrics["map_at_10"]) == (0.35543595158098623, 0.3333333333333333)
    assert (metrics["mrr_at_10"], metrics["recall_at_5"], metrics["success_at_1"]) == (0.5, 2 / 3, 0.0)


def test_conventions_are_declared_in_full_and_known() -> None:
    assert Conventions.declared({"ndcg_gain": "exponential", "map_denominator": "relevant"}) == Conventions(
        "exponential", "relevant")
    assert Conventions.declared(scifact_contract().measures) == Conventions.declared(tiny_contract().measures) == (
        TREC_EVAL)
    assert TREC_EVAL.record() == {"ndcg_gain": "grade", "map_denominator": "relevant"}
    with pytest.raises(ValueError, match="exactly"):
        Conventions.declared({"ndcg_gain": "grade"})
    with pytest.raises(ValueError, match="ndcg_gain is 'linear'"):
        Conventions.declared({"ndcg_gain": "linear", "map_denominator": "relevant"})
    with pytest.raises(ValueError, match="map_denominator is 'min'"):
        Conventions("grade", "min")


def test_duplicate_ids_in_a_ranking_are_refused() -> None:
    with pytest.raises(ValueError, match="more than once"):
        metrics_of(["a", "a"], QRELS)


def test_mean_counts_failed_queries_as_zero() -> None:
    rows = [metrics_of(["a"], {"a": 1}), metrics_of([], {"a": 1})]
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
        ours = metrics_of(ranking, qrels[qid])
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


def _every_metric(ranking: list[str], qrels: dict[str, int], conventions: Conventions) -> dict[str, float]:
    return {**query_metrics(ranking, qrels, conventions), **depth_metrics(ranking, qrels, conventions)}


def test_graded_collection_equals_pytrec_eval_exactly() -> None:
    """Grades 3 to -2, more than ten relevant, relevant only below rank 10 or below 100: every metric at 10 and 100
    is trec_eval's, to the last bit."""
    theirs = graded.with_pytrec_eval()
    assert set(theirs) == {qid for qid, ranking in graded.RANKINGS.items() if ranking}
    assert theirs["many"]["num_rel"] > 10 and theirs["negative_only"]["num_rel"] == 0
    for qid, ranking in graded.RANKINGS.items():
        ours = _every_metric(ranking, graded.QRELS[qid], TREC_EVAL)
        expected = {key: theirs[qid][key] for key in ours} if ranking else dict.fromkeys(ours, 0.0)
        assert ours == expected, qid
    assert theirs["negative_first"]["ndcg_at_10"] == 0.35543595158098623


def test_graded_collection_equals_ir_measures_exactly() -> None:
    theirs = graded.with_ir_measures()
    for qid, ranking in graded.RANKINGS.items():
        ours = _every_metric(ranking, graded.QRELS[qid], TREC_EVAL)
        assert ours == {key: theirs[qid][key] for key in ours}, qid


def test_the_exponential_gain_and_the_min_divisor_are_not_trec_eval_s_on_the_graded_collection() -> None:
    """What the comparisons above would catch: the former convention gives other numbers on graded judgements."""
    theirs = graded.with_pytrec_eval()
    ndcg = {qid: query_metrics(graded.RANKINGS[qid], graded.QRELS[qid], EXPONENTIAL)["ndcg_at_10"] for qid in theirs}
    assert {qid for qid in theirs if ndcg[qid] != theirs[qid]["ndcg_at_10"]} >= {"negative_first", "graded",
                                                                                "reversed", "many", "deep"}
    many = query_metrics(graded.RANKINGS["many"], graded.QRELS["many"], EXPONENTIAL)
    assert abs(many["map_at_10"] - theirs["many"]["map_at_10"]) > 0.1
