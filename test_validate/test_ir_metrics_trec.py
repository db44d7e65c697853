"""The nine per-query metrics, pinned to trec_eval (through pytrec_eval) on graded qrels (negative grades too) and on
queries with more than ten relevant documents, under each metric convention a contract may declare. Both
implementations are checked, each against trec_eval on its own: the validator's `ir_metrics.compute` and the runner's
`harness.evaluation.measures.metrics.query_metrics`.

How our definitions map onto trec_eval's measures:
- relevance: grade > 0 is relevant, trec_eval's default relevance_level 1; a grade <= 0 gains nothing in either.
- nDCG@10: trec_eval's ndcg_cut_10 takes the grade itself as the gain: ours under ndcg_gain "grade" (the shipped
  contracts'). Under "exponential" (2^grade - 1) trec_eval is given qrels whose relevant grades are already
  2^grade - 1 (grades 1..3 become 1, 3, 7); that leaves grade > 0 unchanged, so every other measure reads the same
  relevant set. With the plain grades the exponential values must differ on graded queries, which is asserted too.
- MAP@10: trec_eval's map_cut_10 divides by R, the number of relevant documents: ours under map_denominator
  "relevant". Under "relevant_within_k" ours divides by min(R, 10), so it is map_cut_10 * R / min(R, 10), with R
  from trec_eval's own num_rel.
- MRR@10: trec_eval's recip_rank has no cutoff; it is computed on the run cut to its first ten documents.
- Recall@k = recall_k, Success@k = success_k.
- run order: trec_eval ignores the order it is given and sorts by score (descending; ties by doc id,
  descending). Every run here gets strictly decreasing scores so trec_eval sees exactly the intended ranking.
- an empty ranking: trec_eval reports nothing for a query absent from the run (trec_eval -c would score it
  0); ours scores 0 on every metric.
"""

import math
import random
from collections.abc import Callable, Mapping

import pytest
import pytrec_eval

from fixtures import graded_collection as graded
from harness.evaluation.measures.metrics import Conventions, depth_metrics, query_metrics
from harness.validator.retrieval import ir_metrics
from harness.validator.retrieval.ir_metrics import KEYS, TREC_EVAL, compute, compute_depth

Qrels = dict[str, dict[str, int]]
Rankings = dict[str, list[str]]
Metrics = Callable[[list[str], dict[str, int]], Mapping[str, float]]

GAINS = ("grade", "exponential")
DIVISORS = ("relevant", "relevant_within_k")
TREC_MEASURES = {"ndcg_cut.10", "recall.1,5,10", "map_cut.10", "success.1,5,10", "num_rel"}
TOLERANCE = 1e-12


def _validator(gain: str, divisor: str, depth: bool = False) -> Metrics:
    conventions = ir_metrics.Conventions(gain, divisor)
    return lambda ranking, qrels: (compute_depth if depth else compute)(ranking, qrels, conventions)


def _runner(gain: str, divisor: str, depth: bool = False) -> Metrics:
    conventions = Conventions(gain, divisor)
    return lambda ranking, qrels: (depth_metrics if depth else query_metrics)(ranking, qrels, conventions)


IMPLEMENTATIONS: dict[str, Callable[[str, str], Metrics]] = {"validator": _validator, "runner": _runner}
DECLARED = ("grade", "relevant")  # the shipped contracts' declaration, trec_eval's
EVERY_CONVENTION = [(name, gain, divisor) for name in IMPLEMENTATIONS for gain in GAINS for divisor in DIVISORS]


def _exponential(qrels: Qrels) -> Qrels:
    return {qid: {doc: 2**grade - 1 if grade > 0 else grade for doc, grade in docs.items()}
            for qid, docs in qrels.items()}


def _run(rankings: Rankings, cut: int | None = None) -> dict[str, dict[str, float]]:
    return {qid: {doc: float(len(ranking) - rank) for rank, doc in enumerate(ranking[:cut])}
            for qid, ranking in rankings.items() if ranking}


def _trec_eval(rankings: Rankings, qrels: Qrels, gain: str = "grade",
               divisor: str = "relevant") -> dict[str, dict[str, float]]:
    """trec_eval's numbers under our nine keys, translated to the conventions given (plus the raw ones the
    sensitivity checks need)."""
    judged = qrels if gain == "grade" else _exponential(qrels)
    full = pytrec_eval.RelevanceEvaluator(judged, TREC_MEASURES, relevance_level=1).evaluate(_run(rankings))
    linear = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}, relevance_level=1).evaluate(_run(rankings))
    top10 = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}, relevance_level=1).evaluate(_run(rankings, 10))
    out = {}
    for qid, row in full.items():
        relevant = row["num_rel"]
        scale = relevant / min(relevant, 10) if divisor == "relevant_within_k" and relevant else 1.0
        out[qid] = {
            "ndcg_at_10": row["ndcg_cut_10"],
            **{f"recall_at_{k}": row[f"recall_{k}"] for k in (1, 5, 10)},
            "mrr_at_10": top10[qid]["recip_rank"],
            "map_at_10": row["map_cut_10"] * scale,
            **{f"success_at_{k}": row[f"success_{k}"] for k in (1, 5, 10)},
            "plain_map_cut_10": row["map_cut_10"],
            "linear_ndcg_cut_10": linear[qid]["ndcg_cut_10"],
            "num_rel": relevant,
        }
    return out


def _assert_agrees(metrics: Metrics, rankings: Rankings, qrels: Qrels, gain: str = "grade",
                   divisor: str = "relevant") -> dict[str, dict[str, float]]:
    """Every metric of every query equals trec_eval's to TOLERANCE; returns trec_eval's rows."""
    theirs = _trec_eval(rankings, qrels, gain, divisor)
    assert set(theirs) == {qid for qid, ranking in rankings.items() if ranking}
    for qid, ranking in rankings.items():
        ours = dict(metrics(ranking, qrels[qid]))
        assert set(ours) == set(KEYS)
        expected = {key: theirs[qid][key] for key in KEYS} if ranking else dict.fromkeys(KEYS, 0.0)
        wrong = {key: (ours[key], expected[key]) for key in KEYS if not abs(ours[key] - expected[key]) <= TOLERANCE}
        assert not wrong, f"query {qid}: ranking={ranking} qrels={qrels[qid]} (ours, trec_eval)={wrong}"
    return theirs


def _differs(a: float, b: float) -> bool:
    return abs(a - b) > 1e-6


def test_trec_eval_sorts_the_run_by_score_then_doc_id_descending() -> None:
    """Why every run here has strictly decreasing scores: trec_eval does not keep the order it is given."""
    evaluator = pytrec_eval.RelevanceEvaluator({"q": {"a": 1}}, {"recip_rank"})
    assert evaluator.evaluate({"q": {"a": 1.0, "b": 1.0}})["q"]["recip_rank"] == 0.5
    assert evaluator.evaluate({"q": {"b": 1.0, "a": 2.0}})["q"]["recip_rank"] == 1.0


FILLER = [f"u{i:02d}" for i in range(30)]
MANY = {f"r{i:02d}": 1 + i % 3 for i in range(25)}
EDGE_QRELS: Qrels = {
    "empty": {"a": 3, "b": 1},
    "none_retrieved": {"a": 3, "b": 1, "z": 0},
    "short": {"a": 1, "b": 3, "c": 2, "n": 0},
    "long": {"a": 1, "b": 3, "c": 2, "d": 1, "n": 0},
    "below_10_only": {"a": 3, "b": 1, "c": 2},
    "grade_0_only": {"a": 0, "b": 0},
    "negative_only": {"a": -1, "b": -2, "c": 0},
    "negative_first": {"a": 2, "b": 1, "c": 0, "d": -1, "e": 3},
    "graded_reversed": {"a": 1, "b": 2, "c": 3},
    "r_below_10": {f"r{i:02d}": 1 + i % 3 for i in range(7)},
    "r_exactly_10": {f"r{i:02d}": 1 + i % 3 for i in range(10)},
    "r_above_10": MANY,
    "r_above_10_scattered": MANY,
}
EDGE_RANKINGS: Rankings = {
    "empty": [],
    "none_retrieved": ["z", *FILLER[:12]],
    "short": ["n", "b", "u00", "c"],
    "long": ["u00", "a", "n", "u01", "u02", "u03", "u04", "c", "u05", "u06", "b", "u07", "d", *FILLER[8:15]],
    "below_10_only": [*FILLER[:10], "c", "u10", "a", "b"],
    "grade_0_only": ["a", "b", *FILLER[:8]],
    "negative_only": ["a", "b", "c", *FILLER[:7]],
    "negative_first": ["d", "a", "c", "b", "u00"],
    "graded_reversed": ["a", "b", "c"],
    "r_below_10": ["r00", "u00", "r02", "r01", "u01", "r06", *FILLER[2:6], "r05"],
    "r_exactly_10": ["r09", "u00", "r03", "r04", "u01", "r07", *FILLER[2:6], "r00", "r01"],
    "r_above_10": [f"r{i:02d}" for i in (24, 3, 17, 8, 11, 0, 21, 5, 14, 2, 9, 1)],
    "r_above_10_scattered": ["u00", "r02", "u01", "r20", "r13", "u02", "u03", "r07", "u04", "r11", "r01", "r04"],
}


@pytest.mark.parametrize(("name", "gain", "divisor"), EVERY_CONVENTION)
def test_edge_cases_agree_with_trec_eval(name: str, gain: str, divisor: str) -> None:
    metrics = IMPLEMENTATIONS[name](gain, divisor)
    theirs = _assert_agrees(metrics, EDGE_RANKINGS, EDGE_QRELS, gain, divisor)
    for qid in ("empty", "none_retrieved", "below_10_only", "grade_0_only", "negative_only"):
        assert set(metrics(EDGE_RANKINGS[qid], EDGE_QRELS[qid]).values()) == {0.0}, qid
    assert set(theirs["grade_0_only"].values()) == set(theirs["negative_only"].values()) == {0.0}
    # The sensitivity of the comparison: the other gain, or the other MAP divisor, would not match.
    ours = metrics(EDGE_RANKINGS["graded_reversed"], EDGE_QRELS["graded_reversed"])
    assert _differs(ours["ndcg_at_10"], theirs["graded_reversed"]["linear_ndcg_cut_10"]) == (gain == "exponential")
    for qid in ("r_above_10", "r_above_10_scattered"):
        assert theirs[qid]["num_rel"] == 25
        found = metrics(EDGE_RANKINGS[qid], EDGE_QRELS[qid])["map_at_10"]
        assert _differs(found, theirs[qid]["plain_map_cut_10"]) == (divisor == "relevant_within_k")
    for qid in ("r_below_10", "r_exactly_10"):
        assert theirs[qid]["map_at_10"] == theirs[qid]["plain_map_cut_10"]


@pytest.mark.parametrize("name", IMPLEMENTATIONS)
def test_edge_cases_hand_computed(name: str) -> None:
    """Two of the edge cases worked out by hand under each convention, which also pins the translation of trec_eval's
    measures."""
    declared, former = IMPLEMENTATIONS[name](*DECLARED), IMPLEMENTATIONS[name]("exponential", "relevant_within_k")
    short = declared(EDGE_RANKINGS["short"], EDGE_QRELS["short"])
    assert short["ndcg_at_10"] == pytest.approx((3 / math.log2(3) + 2 / math.log2(5))
                                                / (3 + 2 / math.log2(3) + 1 / math.log2(4)), abs=TOLERANCE)
    assert short["map_at_10"] == pytest.approx((1 / 2 + 2 / 4) / 3, abs=TOLERANCE)
    assert short["recall_at_5"] == pytest.approx(2 / 3, abs=TOLERANCE)
    assert (short["mrr_at_10"], short["recall_at_1"], short["success_at_1"], short["success_at_5"]) == (0.5, 0, 0, 1)
    exponential = former(EDGE_RANKINGS["short"], EDGE_QRELS["short"])
    assert exponential["ndcg_at_10"] == pytest.approx((7 / math.log2(3) + 3 / math.log2(5))
                                                      / (7 + 3 / math.log2(3) + 1 / math.log2(4)), abs=TOLERANCE)
    assert exponential["map_at_10"] == short["map_at_10"]  # three relevant: R = min(R, 10)
    # 25 relevant, the first ten ranks all relevant: MAP@10 is trec_eval's map_cut_10, 10/25, or 1 over min(R, 10).
    many = declared(EDGE_RANKINGS["r_above_10"], EDGE_QRELS["r_above_10"])
    assert (many["map_at_10"], many["recall_at_10"], many["ndcg_at_10"] < 1) == (10 / 25, 10 / 25, True)
    assert former(EDGE_RANKINGS["r_above_10"], EDGE_QRELS["r_above_10"])["map_at_10"] == 1.0


@pytest.mark.parametrize("name", IMPLEMENTATIONS)
def test_graded_collection_equals_pytrec_eval_exactly(name: str) -> None:
    """The declared conventions on grades 3 to -2: every value is pytrec_eval's, to the last bit."""
    metrics, depth = IMPLEMENTATIONS[name](*DECLARED), (_validator if name == "validator" else _runner)(*DECLARED,
                                                                                                       depth=True)
    theirs = graded.with_pytrec_eval()
    for qid, ranking in graded.RANKINGS.items():
        ours = {**metrics(ranking, graded.QRELS[qid]), **depth(ranking, graded.QRELS[qid])}
        assert ours == ({key: theirs[qid][key] for key in ours} if ranking else dict.fromkeys(ours, 0.0)), qid
    assert theirs["negative_first"]["ndcg_at_10"] == 0.35543595158098623


@pytest.mark.parametrize("name", IMPLEMENTATIONS)
def test_the_exponential_gain_is_not_trec_eval_s_on_the_graded_collection(name: str) -> None:
    theirs = graded.with_pytrec_eval()
    metrics = IMPLEMENTATIONS[name]("exponential", "relevant")
    differing = {qid for qid in theirs if metrics(graded.RANKINGS[qid], graded.QRELS[qid])["ndcg_at_10"]
                 != theirs[qid]["ndcg_at_10"]}
    assert differing >= {"negative_first", "graded", "reversed", "many", "deep"}


def _random_queries(seed: int, count: int) -> tuple[Rankings, Qrels]:
    rng = random.Random(seed)
    pool = [f"d{i:03d}" for i in range(120)]
    rankings: Rankings = {}
    qrels: Qrels = {}
    for q in range(count):
        qid = f"q{q:03d}"
        relevant = rng.choice([0, 1, 2, 3, 5, 8, 10, 11, 15, 20, 30, rng.randint(1, 30)])
        judged = rng.sample(pool, relevant + rng.randint(0 if relevant else 1, 10))
        qrels[qid] = {doc: rng.randint(1, 3) if i < relevant else 0 for i, doc in enumerate(judged)}
        length = rng.randint(0, 20)
        from_judged = rng.randint(0, min(length, len(judged)))
        ranked = rng.sample(judged, from_judged)
        unjudged = [doc for doc in pool if doc not in qrels[qid]]
        ranked += rng.sample(unjudged, length - from_judged)
        rng.shuffle(ranked)
        rankings[qid] = ranked
    return rankings, qrels


@pytest.mark.parametrize(("name", "gain", "divisor"), EVERY_CONVENTION)
def test_random_graded_queries_agree_with_trec_eval(name: str, gain: str, divisor: str) -> None:
    rankings, qrels = _random_queries(seed=20240611, count=400)
    metrics = IMPLEMENTATIONS[name](gain, divisor)
    theirs = _assert_agrees(metrics, rankings, qrels, gain, divisor)
    # The sample exercises what it claims to, and the comparison would catch the other gain or MAP divisor.
    many = [qid for qid in theirs if theirs[qid]["num_rel"] > 10]
    graded_queries = [qid for qid in theirs if len({g for g in qrels[qid].values() if g > 0}) > 1]
    assert len(many) >= 50 and len(graded_queries) >= 100
    assert sum(not ranking for ranking in rankings.values()) >= 5
    only_below_10 = [qid for qid in theirs if theirs[qid]["recall_at_10"] == 0
                     and any(qrels[qid].get(doc, 0) > 0 for doc in rankings[qid][10:])]
    assert len(only_below_10) >= 3
    other_gain = IMPLEMENTATIONS[name]("exponential" if gain == "grade" else "grade", divisor)
    other_divisor = IMPLEMENTATIONS[name](gain, "relevant_within_k" if divisor == "relevant" else "relevant")
    assert sum(_differs(other_gain(rankings[q], qrels[q])["ndcg_at_10"], theirs[q]["ndcg_at_10"])
               for q in graded_queries) >= 20
    assert sum(_differs(other_divisor(rankings[q], qrels[q])["map_at_10"], theirs[q]["map_at_10"])
               for q in many) >= 20


@pytest.mark.parametrize(("name", "gain"), [(name, gain) for name in IMPLEMENTATIONS for gain in GAINS])
def test_recall_and_ndcg_at_100_agree_with_trec_eval(name: str, gain: str) -> None:
    """Rankings of up to 150 documents with up to 120 relevant (graded): trec_eval's recall_100 and ndcg_cut_100."""
    rng = random.Random(20250101)
    rankings: Rankings = {}
    qrels: Qrels = {}
    for number in range(200):
        qid, pool = f"q{number}", [f"d{i}" for i in range(300)]
        qrels[qid] = {doc: rng.choice((0, 1, 1, 2, 3)) for doc in rng.sample(pool, rng.randint(1, 120))}
        rankings[qid] = rng.sample(pool, rng.choice((0, 5, 60, 100, 150)))
    judged = qrels if gain == "grade" else _exponential(qrels)
    theirs = pytrec_eval.RelevanceEvaluator(judged, {"recall.100", "ndcg_cut.100"},
                                            relevance_level=1).evaluate(_run(rankings))
    depth = (_validator if name == "validator" else _runner)(gain, "relevant", depth=True)
    deeper = 0
    for qid, ranking in rankings.items():
        ours = depth(ranking, qrels[qid])
        found = theirs.get(qid, {"recall_100": 0.0, "ndcg_cut_100": 0.0})
        assert abs(ours["recall_at_100"] - found["recall_100"]) <= TOLERANCE, (qid, ours, found)
        assert abs(ours["ndcg_at_100"] - found["ndcg_cut_100"]) <= TOLERANCE, (qid, ours, found)
        deeper += ours["recall_at_100"] > compute(ranking, qrels[qid], TREC_EVAL)["recall_at_10"]
    assert deeper >= 50  # the sample reaches below rank 10


def test_the_validator_refuses_conventions_it_does_not_know() -> None:
    assert ir_metrics.Conventions.of({"ndcg_gain": "grade", "map_denominator": "relevant"}) == TREC_EVAL
    for stated in ({"ndcg_gain": "linear", "map_denominator": "relevant"}, {"ndcg_gain": "grade"}, None,
                   {"ndcg_gain": "grade", "map_denominator": "relevant", "k": 10}):
        with pytest.raises(ValueError):
            ir_metrics.Conventions.of(stated)
