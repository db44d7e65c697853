"""The validator's own measures by name (harness/validator/retrieval/named_measures.py): the same names read, the
same names refused (each refusal naming the name, the fault and the forms read), and the same values as the harness's
and as trec_eval's (pytrec_eval; ir_measures for RR@k and Judged) per query, on the real SciFact calibration split
with a real bm25s run and on the graded collection, under both conventions the pins may state."""

import functools
from pathlib import Path

import ir_measures
import pytest

import harness
from fixtures import graded_collection as graded
from fixtures.bm25_run import bm25_run
from fixtures.named_reference import every_name, reference, scored
from harness.evaluation.measures import metrics
from harness.evaluation.measures.named import MeasureNameError, parse_measure, value
from harness.trec_order import trec_order
from harness.validator.retrieval import ir_metrics
from harness.validator.retrieval.named_measures import NamedMeasure, NameRefused, compute, parse

Scored = dict[str, dict[str, float]]
Qrels = dict[str, dict[str, int]]
TOLERANCE = 1e-12
CONVENTIONS = [(gain, divisor) for gain in ("grade", "exponential") for divisor in ("relevant", "relevant_within_k")]
REFUSED = ["ndcg@10", "MAP@10", "MRR@10", "recall@5", "ndcg_cut_10", "P_5", "Foo@10", "P@0", "P@-3", "P@1.5",
           "P@ten", "P@05", "P@", "nDCG(rel=2)@10", "Judged(rel=2)@5", "P(rel=0)@5", "R(rel=-1)@5", "AP(rel=x)@5",
           "P(judged_only=True)@5", "P", "Success(rel=2)", "R", "", "nDCG @10", "P(rel=2", "AP(rel=2)(x)@3"]
SUGGESTED = {"ndcg@10": "nDCG@10", "MAP@10": "AP@10", "MRR@10": "RR@10", "recall@5": "R@5",
             "ndcg_cut_10": "nDCG@10", "P_5": "P@5", "map_cut.10": "AP@10", "hit_rate@10": "Success@10"}


@functools.cache
def _scifact(archive: Path) -> tuple[Scored, Qrels]:
    split = harness.calibration("scifact", archive)
    return bm25_run(split.corpus, split.queries, depth=100), split.qrels


@pytest.mark.parametrize("name", [*every_name(), "P(rel=1)@5", "Success(rel=3)@7"])
def test_the_same_names_are_read(name: str) -> None:
    assert parse(name).name == str(parse_measure(name)) == str(ir_measures.parse_measure(name))


@pytest.mark.parametrize("name", REFUSED)
def test_the_same_names_are_refused_each_named(name: str) -> None:
    with pytest.raises(MeasureNameError):
        parse_measure(name)
    with pytest.raises(NameRefused) as refused:
        parse(name)
    message = str(refused.value)
    assert f"the measure {name!r} is refused: " in message and "P(rel=N)@k" in message, message


@pytest.mark.parametrize(("name", "suggested"), sorted(SUGGESTED.items()))
def test_another_tools_spelling_is_answered_with_ir_measures_one(name: str, suggested: str) -> None:
    with pytest.raises(NameRefused, match=f"ir_measures writes it '{suggested}'"):
        parse(name)


@pytest.mark.parametrize(("name", "words"), [("AP", "the rows keep 100 ranks, so write AP@100"),
                                             ("nDCG@101", "deeper than the 100 ranks the rows keep"),
                                             ("RR(rel=2)", "write RR(rel=2)@100")])
def test_a_depth_refuses_what_it_does_not_keep(name: str, words: str) -> None:
    assert parse(name).k in (None, 101)
    with pytest.raises(NameRefused, match=words.replace("(", r"\(").replace(")", r"\)")):
        parse(name, max_cutoff=100)
    with pytest.raises(MeasureNameError):
        parse_measure(name, max_cutoff=100)


def test_a_non_string_name_is_refused() -> None:
    with pytest.raises(NameRefused, match="named by a string"):
        parse(10)  # type: ignore[arg-type]


def _assert_three_agree(run: Scored, qrels: Qrels) -> None:
    names = every_name()
    theirs = reference(names, run, qrels)
    for gain, divisor in CONVENTIONS:
        own, runners = ir_metrics.Conventions(gain, divisor), metrics.Conventions(gain, divisor)
        for qid in qrels:
            ranking = trec_order(run.get(qid, {}))
            for name in names:
                validator = compute(parse(name), ranking, qrels[qid], own)
                harness_value = value(parse_measure(name), ranking, qrels[qid], runners)
                assert abs(validator - harness_value) <= TOLERANCE, (qid, name, gain, divisor)
                if (gain, divisor) == ("grade", "relevant") and qid in theirs:
                    assert abs(validator - theirs[qid][name]) <= TOLERANCE, (qid, name)


@pytest.mark.real_data
def test_equal_to_the_harness_and_trec_eval_on_scifact_calibration(scifact_archive: Path) -> None:
    run, qrels = _scifact(scifact_archive)
    assert len(qrels) == 100
    _assert_three_agree(run, qrels)


def test_equal_to_the_harness_and_trec_eval_on_graded_judgements() -> None:
    _assert_three_agree(scored(graded.RANKINGS), graded.QRELS)
    # the conventions matter on this collection: the validator follows them
    many = graded.QRELS["many"]
    ranking = graded.RANKINGS["many"]
    trec = compute(parse("AP@10"), ranking, many, ir_metrics.TREC_EVAL)
    within = compute(parse("AP@10"), ranking, many, ir_metrics.Conventions("grade", "relevant_within_k"))
    assert within == trec * 14 / 10


def test_its_own_refusals_of_a_ranking() -> None:
    with pytest.raises(ValueError, match="repeats a document"):
        compute(parse("P@5"), ["a", "a"], {"a": 1}, ir_metrics.TREC_EVAL)
    with pytest.raises(ValueError, match="above 1000"):
        compute(parse("nDCG@5"), ["a"], {"a": 1001}, ir_metrics.TREC_EVAL)
    assert compute(parse("Judged"), [], {"a": 1}, ir_metrics.TREC_EVAL) == 0.0
    assert compute(NamedMeasure("RR", None, 2), ["a", "b"], {"a": 1, "b": 2}, ir_metrics.TREC_EVAL) == 0.5
