"""The replay's parts: admissible rank intervals, the independent BM25 against bm25s, exact and bounded modes."""

import json

import bm25s
import numpy as np
import pytest

from harness.systems.builtin.config.search_config import LexicalConfig
from harness.systems.builtin.index.lexical import LexicalIndex
from harness.systems.builtin.index.tokenizer import Tokenizer as HarnessTokenizer
from harness.systems.builtin.store.store import lexical_text
from harness.validator.pipeline import validate
from harness.validator.retrieval.bm25 import BM25, Tokenizer
from harness.validator.retrieval.lanes import dense_tolerance, lexical_tolerance
from harness.validator.retrieval.ranking import Lane, fixed_groups, groups_of, id_ranks

from . import forger
from .support import CleanRun, Row, RunCopy, check_named, describe, failed_names


def lane(scores: list[float], tolerance: float, groups: list[int] | None = None,
         candidates: list[int] | None = None) -> Lane:
    ids = [f"d{i}" for i in range(len(scores))]
    return Lane(ids, id_ranks(ids), np.array(scores, dtype=np.float64), tolerance,
                fixed_groups(np.array(groups if groups is not None else range(len(scores)), dtype=np.int64)),
                np.array(candidates if candidates is not None else range(len(scores)), dtype=np.intp))


def test_distinct_scores_far_apart_admit_one_rank_each() -> None:
    low, high = lane([0.9, 0.1, 0.5], 1e-6).admissible()
    assert low.tolist() == [1, 3, 2] and high.tolist() == [1, 3, 2]


def test_scores_within_twice_the_tolerance_admit_either_order() -> None:
    low, high = lane([0.5, 0.5 + 1.5e-6, 0.1], 1e-6).admissible()
    assert low.tolist() == [1, 1, 3] and high.tolist() == [2, 2, 3]


def test_documents_bound_to_equal_scores_are_ordered_by_doc_id() -> None:
    """d0 and d2 share a group (the run must score them equally), so the tie rule decides between them."""
    low, high = lane([0.5, 0.9, 0.5], 1e-6, groups=[7, 1, 7]).admissible()
    assert low.tolist() == [2, 1, 3] and high.tolist() == [2, 1, 3]


def test_only_candidates_are_ranked() -> None:
    replayed = lane([0.0, 0.7, 0.0, 0.2], 1e-6, candidates=[1, 3])
    low, high = replayed.admissible()
    assert replayed.order().tolist() == [1, 3] and low.tolist() == [1, 2] and high.tolist() == [1, 2]


def test_replayed_order_breaks_equal_scores_by_doc_id_in_code_point_order() -> None:
    ids = ["b", "a", "B", "ä"]
    replayed = Lane(ids, id_ranks(ids), np.full(4, 0.3), 0.0, fixed_groups(groups_of(np.zeros((4, 1)))),
                    np.arange(4))
    assert [ids[i] for i in replayed.order()] == sorted(ids)


def test_the_bounds_follow_their_stated_formulas() -> None:
    gamma = 384 * 2.0**-24 / (1 - 384 * 2.0**-24)
    assert dense_tolerance(384, 1.0) == pytest.approx(gamma + 384 * 2.0**-53, rel=1e-12)
    assert lexical_tolerance(3, 10.0) == pytest.approx(12 * 2.0**-24 * 10.0)


def _tokenizer_record() -> dict[str, object]:
    """The record the store saves beside its lexical index."""
    return HarnessTokenizer(LexicalConfig()).record()


def test_independent_bm25_reproduces_bm25s_bit_for_bit_and_within_its_bound(clean_run: CleanRun) -> None:
    fixture = json.loads(clean_run.fixture_path.read_text(encoding="utf-8"))
    texts = [lexical_text(d["title"], d["text"]) for d in fixture["documents"]]
    config = LexicalConfig()
    index = LexicalIndex.build(texts, config)
    ours = BM25(texts, Tokenizer.from_record(_tokenizer_record()), config.k1, config.b)
    queries = [q["text"] for q in fixture["queries"]] + ["aspirin aspirin platelet", "the of and", "zzzz unknown"]
    for query in queries:
        theirs, mine = index.score(query), ours.score(query)
        assert mine.tokens == theirs.query_tokens, query
        if theirs.scores is None:
            assert not mine.scores.any()
            continue
        assert np.array_equal(mine.engine, theirs.scores), query
        bound = lexical_tolerance(len(mine.tokens), float(mine.scores.max()))
        assert np.abs(theirs.scores.astype(np.float64) - mine.scores).max() <= bound


def test_bm25_formula_on_a_hand_computed_corpus() -> None:
    """Three documents, Lucene idf and length normalisation worked out by hand (stemmer: 'cats' -> 'cat')."""
    ours = BM25(["cat dog", "cat cats bird", "fish"], Tokenizer.from_record(_tokenizer_record()), 1.5, 0.75)
    idf = np.log(1 + (3 - 2 + 0.5) / (2 + 0.5))
    average = (2 + 3 + 1) / 3
    expected = [idf * 1 / (1 + 1.5 * (0.25 + 0.75 * 2 / average)), idf * 2 / (2 + 1.5 * (0.25 + 0.75 * 3 / average)),
                0.0]
    scored = ours.score("Cat!")
    assert scored.tokens == ["cat"]
    assert scored.scores.tolist() == pytest.approx(expected, rel=1e-15)


def test_bm25s_is_not_what_the_validator_imports() -> None:
    assert BM25.__module__ == "harness.validator.retrieval.bm25" and bm25s.BM25 is not BM25


def _next_float32(value: float) -> float:
    return float(np.nextafter(np.float32(value), np.float32(np.inf)))


def _round_every_score_differently(copy: RunCopy, mode: str, split: str, rows_to_change: int | None) -> None:
    """Each reported dense score moved by one float32 ulp, as another BLAS might round it; digests resealed."""
    rows = copy.rows(mode, split)
    changed: list[Row] = rows if rows_to_change is None else rows[:rows_to_change]
    for row in changed:
        for result in row["results"]:
            result["score"] = _next_float32(result["score"])
            result["lanes"]["dense"]["score"] = result["score"]
        forger.reseal_row(row)
    forger.write_forged(copy, mode, split, rows)


def test_scores_rounded_differently_in_every_row_pass_within_the_bound_and_say_so(run_copy: RunCopy) -> None:
    _round_every_score_differently(run_copy, "vector_only", "calibration", None)
    report = validate(run_copy.aggregate_path("vector_only", "calibration"), embeddings=False)
    check = check_named(report, "replay.dense")
    assert check.status == "pass", describe(report)
    assert "within the rounding bound" in check.detail and "not reproduced bit for bit" in check.detail
    notes = report.notes["replay.vector_only"]["dense"]
    assert notes["bit_exact_rows"] == 0 and notes["bounded_rows"] == notes["rows"] > 0


def test_one_row_rounded_differently_among_bit_exact_rows_is_refused(run_copy: RunCopy) -> None:
    _round_every_score_differently(run_copy, "vector_only", "heldout", 1)
    report = validate(run_copy.aggregate_path("vector_only", "heldout"), embeddings=False)
    assert "replay.dense" in failed_names(report), describe(report)
    check = check_named(report, "replay.dense")
    assert "one run cannot give both" in str(check.found) and "(queries " in str(check.found), check


def test_a_reordered_row_is_refused_in_the_bounded_mode_too(run_copy: RunCopy) -> None:
    _round_every_score_differently(run_copy, "vector_only", "calibration", None)
    forger.forge_single_lane(run_copy, "vector_only", "calibration", every_row=False)
    report = validate(run_copy.aggregate_path("vector_only", "calibration"), embeddings=False)
    assert "replay.dense" in failed_names(report), describe(report)
    assert "could be ordered either way" not in check_named(report, "replay.dense").detail
