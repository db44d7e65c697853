"""Measures by name (harness/evaluation/measures/named.py): every name read back as ir_measures prints it, every other
spelling refused by name with what is wrong and the forms accepted, and every family at k in 1, 3, 5, 10, 20, 100
(uncut and rel=2 forms too) equal per query to trec_eval through pytrec_eval (ir_measures for RR@k and Judged) on the
real SciFact calibration split with a real bm25s run, and on the graded collection with grades 3 to -2. The receipts'
metrics are the same code: each default key's value is its name's value, exactly."""

import functools
from pathlib import Path

import ir_measures
import pytest

import harness
from fixtures import graded_collection as graded
from fixtures.bm25_run import bm25_run
from fixtures.named_reference import CUTOFFS, every_name, reference, scored
from harness.errors import HarnessError
from harness.evaluation.measures.metrics import (
    DEPTH_METRIC_KEYS,
    METRIC_KEYS,
    TREC_EVAL,
    Conventions,
    depth_metrics,
    query_metrics,
)
from harness.evaluation.measures.named import (
    DEFAULT_MEASURES,
    DEFAULT_NAMES,
    Measure,
    MeasureNameError,
    parse_measure,
    value,
)
from harness.trec_order import trec_order

Scored = dict[str, dict[str, float]]
Qrels = dict[str, dict[str, int]]
TOLERANCE = 1e-12
EXPONENTIAL = Conventions("exponential", "relevant_within_k")
CANONICAL = ["nDCG@10", "P@5", "R@100", "AP@10", "RR@10", "Success@1", "Judged@10", "nDCG@3", "P(rel=2)@5",
             "R(rel=2)@10", "AP(rel=2)@20", "RR(rel=3)@10", "Success(rel=2)@5", "nDCG", "AP", "RR", "Judged",
             "AP(rel=2)", "RR(rel=2)"]


@functools.cache
def _scifact(archive: Path) -> tuple[Scored, Qrels]:
    split = harness.calibration("scifact", archive)
    return bm25_run(split.corpus, split.queries, depth=100), split.qrels


@pytest.fixture(scope="module")
def scifact_run(scifact_archive: Path) -> tuple[Scored, Qrels]:
    """The 100 calibration queries of the real archive, and bm25s's top 100 for each (some scores tie)."""
    return _scifact(scifact_archive)


@pytest.mark.parametrize("name", CANONICAL)
def test_each_name_reads_back_as_ir_measures_prints_it(name: str) -> None:
    assert str(parse_measure(name)) == str(ir_measures.parse_measure(name)) == name


def test_the_default_threshold_is_not_written() -> None:
    assert str(parse_measure("P(rel=1)@5")) == str(ir_measures.parse_measure("P(rel=1)@5")) == "P@5"
    assert parse_measure("P(rel=1)@5") == parse_measure("P@5") == Measure("P", 5, 1)


@pytest.mark.parametrize(("name", "words"), [
    ("ndcg@10", ["'ndcg'", "'nDCG@10'"]), ("MAP@10", ["'MAP'", "'AP@10'"]), ("MRR@10", ["'MRR'", "'RR@10'"]),
    ("recall@5", ["'recall'", "'R@5'"]), ("ndcg_cut_10", ["'nDCG@10'"]), ("P_5", ["'P@5'"]),
    ("map_cut.10", ["'AP@10'"]), ("hit_rate@10", ["'Success@10'"]), ("Foo@10", ["'Foo'", "nDCG, P, R, AP"]),
    ("P@0", ["a cutoff of 0"]), ("P@-3", ["a cutoff of -3"]), ("P@1.5", ["'1.5' is not an integer"]),
    ("P@ten", ["'ten' is not an integer"]), ("P@05", ["leading zero"]), ("P@", ["nothing follows the @"]),
    ("nDCG(rel=2)@10", ["nDCG takes no", "write nDCG@10"]), ("Judged(rel=2)@5", ["Judged takes no"]),
    ("P(rel=0)@5", ["rel=0", "1 or more"]), ("R(rel=-1)@5", ["rel=-1", "1 or more"]),
    ("AP(rel=x)@5", ["rel=x is not an integer"]), ("P(judged_only=True)@5", ["'judged_only=True'", "only rel="]),
    ("P", ["P needs a cutoff", "P@10"]), ("Success(rel=2)", ["Success needs a cutoff", "Success(rel=2)@10"]),
    ("", ["not written as FAMILY@k"]),
])
def test_every_other_spelling_is_refused_by_name(name: str, words: list[str]) -> None:
    with pytest.raises(MeasureNameError) as refused:
        parse_measure(name)
    message = str(refused.value)
    assert message.startswith(f"measure {name!r}: ") and "P(rel=2)@5" in message, message  # the forms accepted
    for word in words:
        assert word in message, message
    assert isinstance(refused.value, HarnessError) and isinstance(refused.value, ValueError)


@pytest.mark.parametrize(("name", "words"), [
    ("AP", ["the rows keep 100 ranks: write AP@100"]), ("RR(rel=2)", ["write RR(rel=2)@100"]),
    ("nDCG", ["write nDCG@100"]), ("nDCG@101", ["101 goes beyond the 100 ranks the rows keep", "nDCG@100"]),
    ("P(rel=2)@1000", ["1000 goes beyond the 100 ranks", "P(rel=2)@100"]),
])
def test_a_depth_refuses_uncut_forms_and_deeper_cutoffs(name: str, words: list[str]) -> None:
    parse_measure(name)  # the API reads the whole given ranking
    with pytest.raises(MeasureNameError) as refused:
        parse_measure(name, max_cutoff=100)
    assert all(word in str(refused.value) for word in words), str(refused.value)
    assert str(parse_measure("nDCG@100", max_cutoff=100)) == "nDCG@100"


def test_a_measure_made_directly_holds_to_the_same_rules() -> None:
    for family, cutoff, rel in (("P", None, 1), ("nDCG", 10, 2), ("Judged", 5, 3), ("P", 0, 1), ("R", 5, 0),
                                ("MAP", 10, 1), ("P", True, 1)):
        with pytest.raises(MeasureNameError):
            Measure(family, cutoff, rel)
    assert str(Measure("AP", None, 2)) == "AP(rel=2)"


def test_the_default_keys_are_their_names_computed_by_the_same_code() -> None:
    """Each receipt key's value is its name's value, exactly, under both conventions of each, on every query of
    the graded collection (a ranking deeper than 100 and an empty one among them)."""
    assert set(DEFAULT_NAMES) == set(METRIC_KEYS) | set(DEPTH_METRIC_KEYS)
    assert DEFAULT_MEASURES == ("nDCG@10", "R@1", "R@5", "R@10", "RR@10", "AP@10", "Success@1", "Success@5",
                                "Success@10")
    for conventions in (TREC_EVAL, EXPONENTIAL, Conventions("grade", "relevant_within_k")):
        for qid, ranking in graded.RANKINGS.items():
            keys = {**query_metrics(ranking, graded.QRELS[qid], conventions),
                    **depth_metrics(ranking, graded.QRELS[qid], conventions)}
            by_name = {key: value(parse_measure(name), ranking, graded.QRELS[qid], conventions)
                       for key, name in DEFAULT_NAMES.items()}
            assert by_name == keys, (qid, conventions)


def _assert_equal(run: Scored, qrels: Qrels, names: list[str]) -> int:
    """Every name's value per query equals the reference tool's within 1e-12; returns how many were compared."""
    theirs = reference(names, run, qrels)
    assert set(theirs) == {qid for qid in qrels if run.get(qid)}
    compared = 0
    for qid, values in theirs.items():
        assert set(values) == set(names), qid
        ranking = trec_order(run[qid])
        for name, expected in values.items():
            ours = value(parse_measure(name), ranking, qrels[qid], TREC_EVAL)
            assert abs(ours - expected) <= TOLERANCE, (qid, name, ours, expected)
            compared += 1
    return compared


@pytest.mark.real_data
def test_every_family_equals_trec_eval_on_scifact_calibration_with_bm25s(scifact_run: tuple[Scored, Qrels]) -> None:
    run, qrels = scifact_run
    assert len(qrels) == 100 and all(len(scores) == 100 for scores in run.values())
    assert any(len(set(scores.values())) < len(scores) for scores in run.values())  # tied scores: trec_eval's order
    assert _assert_equal(run, qrels, every_name()) == 100 * len(every_name())
    # some query scores strictly between 0 and 1 on each family at 10: the comparison is not of zeros
    for name in ("nDCG@10", "P@10", "R@10", "AP@10", "RR@10", "Judged@10"):
        assert any(0 < value(parse_measure(name), trec_order(run[q]), qrels[q], TREC_EVAL) < 1 for q in qrels), name


def test_every_family_equals_trec_eval_on_graded_judgements_with_negative_grades() -> None:
    """Grades 3 to -2, more than ten relevant, relevant only below rank 10, a ranking deeper than 100 (the uncut
    forms read past it), a run shorter than k (Judged's denominator), and rel=2."""
    run = scored(graded.RANKINGS)
    assert _assert_equal(run, graded.QRELS, every_name()) == 7 * len(every_name())
    empty = graded.QRELS["empty"]
    assert {name: value(parse_measure(name), [], empty, TREC_EVAL) for name in every_name()} == dict.fromkeys(
        every_name(), 0.0)


def test_judged_counts_any_grade_over_the_documents_ranked_up_to_k() -> None:
    """ir_measures' Judged@k: judged documents in the top k, whatever their grade, over min(k, ranked)."""
    qrels = {"a": 1, "b": 0, "c": -1}
    assert value(parse_measure("Judged@10"), ["a", "x", "b", "c"], qrels, TREC_EVAL) == 3 / 4
    assert value(parse_measure("Judged@2"), ["a", "x", "b", "c"], qrels, TREC_EVAL) == 1 / 2
    assert value(parse_measure("Judged@10"), ["b", "c"], qrels, TREC_EVAL) == 1.0  # no relevant document, all judged
    assert value(parse_measure("P@10"), ["a"], qrels, TREC_EVAL) == 1 / 10  # P divides by k, ranked or not
    assert list(CUTOFFS) == [1, 3, 5, 10, 20, 100]


def test_conventions_reach_the_named_measures() -> None:
    qrels = {f"r{i}": 1 + i % 3 for i in range(12)}
    ranking = [f"r{i}" for i in range(10)]
    assert value(parse_measure("AP@10"), ranking, qrels, TREC_EVAL) == 10 / 12
    assert value(parse_measure("AP@10"), ranking, qrels, EXPONENTIAL) == 1.0
    assert value(parse_measure("AP"), ranking, qrels, EXPONENTIAL) == 10 / 12  # uncut: every relevant document
    assert value(parse_measure("nDCG@10"), ranking, qrels, EXPONENTIAL) != value(
        parse_measure("nDCG@10"), ranking, qrels, TREC_EVAL)


def test_a_ranking_listing_a_document_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="more than once"):
        value(parse_measure("P@5"), ["a", "b", "a"], {"a": 1}, TREC_EVAL)
