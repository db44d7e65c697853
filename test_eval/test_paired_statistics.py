"""The comparison's statistics, checked against scipy and by hand, on tiny-corpus-shaped rows with fixed seeds.

- the paired t-test equals scipy.stats.ttest_rel to 1e-12 (statistic and p-value);
- the sign-flip randomization p-value lies within Monte Carlo error of scipy's exact permutation test (all 2^n
  sign vectors enumerated), and of its own exact enumeration;
- the percentile bootstrap interval lies within Monte Carlo error of scipy.stats.bootstrap (percentile method);
- Holm's adjustment equals a hand-worked example;
- the draws and the whole comparison are deterministic, and the validator's independent statistics agree.
"""

import itertools
import math
import re
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np
import pytest
import scipy.stats

from fixtures.paired_rows import MODES, column, ranked_rows
from harness.evaluation.comparison import paired_statistics as stats
from harness.evaluation.comparison.artifact import Procedure, comparison_document, document_bytes
from harness.evaluation.comparison.inputs import ComparisonRefused, ModeInput
from harness.evaluation.comparison.procedure_terms import MIN_PERMUTATIONS, MIN_RESAMPLES
from harness.evaluation.measures.metrics import METRIC_KEYS
from harness.validator.comparison import paired_stats as independent

SEED = 11
PAIRS = [("vector_only", "fts_only"), ("hybrid", "fts_only"), ("hybrid", "vector_only")]
CONTINUOUS = ("ndcg_at_10", "mrr_at_10", "map_at_10")
ROWS = ranked_rows(40, seed=3)
LARGE = ranked_rows(200, seed=5)


def _differences(rows: dict[str, list[dict[str, Any]]], a: str, b: str, metric: str) -> list[float]:
    return [x - y for x, y in zip(column(rows[a], metric), column(rows[b], metric), strict=True)]


@pytest.mark.parametrize("rows", [ROWS, LARGE], ids=["n40", "n200"])
@pytest.mark.parametrize(("a", "b"), PAIRS)
@pytest.mark.parametrize("metric", METRIC_KEYS)
def test_the_t_test_is_scipys_to_1e_12(rows: dict[str, list[dict[str, Any]]], a: str, b: str, metric: str) -> None:
    d = _differences(rows, a, b, metric)
    t, p = stats.t_test(d)
    if float(np.std(d)) == 0.0:
        assert (t, p) == (None, None)
        return
    reference = scipy.stats.ttest_rel(column(rows[a], metric), column(rows[b], metric))
    assert t is not None and p is not None
    assert abs(t - float(reference.statistic)) <= 1e-12, (t, reference.statistic)
    assert abs(p - float(reference.pvalue)) <= 1e-12, (p, reference.pvalue)
    independent_t, independent_p = independent.t_test(d)
    assert independent_t is not None and independent_p is not None
    assert abs(independent_p - float(reference.pvalue)) <= 1e-12


def _exact_sign_flip(d: list[float]) -> float:
    """P(|S*| >= |S|) over all 2^n sign vectors, the randomization test's exact value."""
    observed = abs(math.fsum(d))
    hits: int = sum(abs(math.fsum(s * x for s, x in zip(signs, d, strict=True))) >= observed - stats.TIE_MARGIN
               for signs in itertools.product((1.0, -1.0), repeat=len(d)))
    return hits / float(2 ** len(d))


@pytest.mark.parametrize(("a", "b"), PAIRS)
@pytest.mark.parametrize("metric", ["ndcg_at_10", "success_at_5", "map_at_10"])
def test_the_randomization_p_value_is_within_monte_carlo_error_of_the_exact_one(a: str, b: str, metric: str) -> None:
    small = {mode: rows[:12] for mode, rows in ROWS.items()}
    d = _differences(small, a, b, metric)
    drawn = stats.draws(SEED, len(d), 1000, MIN_PERMUTATIONS)
    extreme, p = stats.randomization_test(d, drawn.signs)
    assert p == (extreme + 1) / (MIN_PERMUTATIONS + 1)
    exact = _exact_sign_flip(d)
    reference = scipy.stats.permutation_test(
        (column(small[a], metric), column(small[b], metric)), lambda x, y: np.mean(x - y),
        permutation_type="samples", alternative="two-sided", n_resamples=np.inf)
    assert abs(float(reference.pvalue) - exact) <= 1e-12, (reference.pvalue, exact)
    monte_carlo = math.sqrt(exact * (1 - exact) / MIN_PERMUTATIONS)
    assert abs(p - exact) <= 4.5 * monte_carlo + 1 / (MIN_PERMUTATIONS + 1), (p, exact)


def _quantile_tolerance(d: list[float], resamples: tuple[int, int]) -> float:
    """Five standard errors of the difference of two percentile estimates of a 2.5% quantile, by the normal
    approximation of the bootstrap distribution of the mean: sqrt(q(1-q)(1/B1 + 1/B2)) / density at the quantile."""
    se = float(np.std(d, ddof=1)) / math.sqrt(len(d))
    density = NormalDist().pdf(NormalDist().inv_cdf(0.025)) / se
    return 5 * math.sqrt(0.025 * 0.975 * (1 / resamples[0] + 1 / resamples[1])) / density


@pytest.mark.parametrize(("a", "b"), PAIRS)
@pytest.mark.parametrize("metric", CONTINUOUS)
def test_the_bootstrap_interval_is_within_monte_carlo_error_of_scipys(a: str, b: str, metric: str) -> None:
    d = _differences(ROWS, a, b, metric)
    drawn = stats.draws(SEED, len(d), 10_000, MIN_PERMUTATIONS)
    low, high = stats.bootstrap_interval(d, drawn.indices)
    reference = scipy.stats.bootstrap((np.array(d),), np.mean, confidence_level=0.95, method="percentile",
                                      n_resamples=100_000, random_state=np.random.default_rng(1))
    tolerance = _quantile_tolerance(d, (10_000, 100_000))
    assert abs(low - float(reference.confidence_interval.low)) <= tolerance, (low, reference, tolerance)
    assert abs(high - float(reference.confidence_interval.high)) <= tolerance, (high, reference, tolerance)
    assert low <= stats.mean(d) <= high


def test_holm_by_hand() -> None:
    # m = 4: sorted 0.005, 0.01, 0.03, 0.04 -> 4 x 0.005 = 0.02, 3 x 0.01 = 0.03, 2 x 0.03 = 0.06,
    # 1 x 0.04 = 0.04 raised to the running maximum 0.06.
    assert stats.holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02], abs=1e-15)
    assert stats.holm([0.3, 0.6]) == [0.6, 0.6]  # 2 x 0.3 = 0.6, then max(0.6, 0.6)
    assert stats.holm([0.5, 0.9, 0.01]) == pytest.approx([1.0, 1.0, 0.03])  # capped at 1
    assert stats.holm([0.02, 0.02]) == [0.04, 0.04]
    for p_values in ([0.01, 0.04, 0.03, 0.005], [0.3, 0.6], [0.5, 0.9, 0.01], [0.02, 0.02]):
        assert independent.holm(p_values) == pytest.approx(stats.holm(p_values), abs=1e-15)


def test_the_draws_follow_the_documented_order() -> None:
    drawn = stats.draws(SEED, 7, 3, 2)
    raw = np.random.PCG64(SEED).random_raw(3 * 7 + 2 * 7)
    assert drawn.indices.tolist() == (raw[:21] % np.uint64(7)).astype(int).reshape(3, 7).tolist()
    assert drawn.signs.tolist() == np.where(raw[21:] >= np.uint64(2**63), -1.0, 1.0).reshape(2, 7).tolist()
    again = stats.draws(SEED, 7, 3, 2)
    assert np.array_equal(drawn.indices, again.indices) and np.array_equal(drawn.signs, again.signs)


def test_the_validators_statistics_agree_with_the_producers() -> None:
    n = len(ROWS["hybrid"])
    drawn = stats.draws(SEED, n, 2000, MIN_PERMUTATIONS)
    other = independent.sample(SEED, n, 2000, MIN_PERMUTATIONS)
    counts = np.stack([np.bincount(row, minlength=n) for row in drawn.indices])
    assert np.array_equal(counts, other.counts)
    assert np.array_equal(drawn.signs == -1.0, other.flipped == 1.0)
    for a, b in PAIRS:
        for metric in METRIC_KEYS:
            d = _differences(ROWS, a, b, metric)
            assert stats.randomization_test(d, drawn.signs)[0] == independent.sign_flip(d, other, stats.TIE_MARGIN)
            mine, theirs = stats.bootstrap_interval(d, drawn.indices), independent.interval(d, other)
            assert mine == pytest.approx(theirs, abs=1e-12)


def _inputs(rows: dict[str, list[dict[str, Any]]]) -> list[ModeInput]:
    """Inputs of one experiment (one fixture, system, store and no freeze, as calibration runs are)."""
    digest = "sha256:" + "0" * 64
    receipt = {"retrieval": {"config_sha256": digest}, "corpus": {"fixture_sha256": digest},
               "system": {"name": "paired rows"}, "store": {"store_sha256": digest}, "freeze": None}
    return [ModeInput(mode, Path(f"scifact-{mode}-calibration.aggregate.json"),
                      {"receipt": {**receipt, "run": {"run_id": f"run-{mode}"}}}, digest,
                      Path(f"scifact-{mode}-calibration.jsonl"), rows[mode], digest, b"", b"") for mode in MODES]


def test_the_same_rows_and_seed_give_byte_identical_comparisons() -> None:
    def once(seed: int) -> bytes:
        return document_bytes(comparison_document(_inputs(ROWS), "calibration", baseline=None,
                                                  procedure=Procedure(seed=seed), verdicts=None))
    first = once(SEED)
    assert once(SEED) == first
    assert once(SEED + 1) != first


def test_a_baseline_compares_each_mode_against_it() -> None:
    document = comparison_document(_inputs(ROWS), "calibration", baseline="hybrid", procedure=Procedure(),
                                   verdicts=None)
    assert [(c["a"], c["b"]) for c in document["comparisons"]] == [("fts_only", "hybrid"), ("vector_only", "hybrid")]
    for metric in METRIC_KEYS:
        raw = [c["metrics"][metric]["randomization"]["p_value"] for c in document["comparisons"]]
        assert [c["metrics"][metric]["holm_p_value"] for c in document["comparisons"]] == stats.holm(raw)


def test_degenerate_differences() -> None:
    drawn = stats.draws(SEED, 4, 1000, MIN_PERMUTATIONS)
    same = stats.paired_difference([0.5, 1.0, 0.0, 0.2], [0.5, 1.0, 0.0, 0.2], drawn)
    assert same["randomization"] == {"extreme_count": MIN_PERMUTATIONS, "p_value": 1.0}
    assert same["t_test"] == {"statistic": None, "df": 3, "p_value": None} and same["effect_size"] is None
    assert (same["wins"], same["ties"], same["losses"], same["ci_low"], same["ci_high"]) == (0, 4, 0, 0.0, 0.0)


@pytest.mark.parametrize(("procedure", "said"), [
    (Procedure(seed=-1), "--seed -1"), (Procedure(seed=2**63), f"--seed {2**63}"),
    (Procedure(resamples=MIN_RESAMPLES - 1), "--resamples"),
    (Procedure(permutations=MIN_PERMUTATIONS - 1), "--permutations")])
def test_a_procedure_out_of_range_is_refused_whoever_asks(procedure: Procedure, said: str) -> None:
    """The command line checks its options; a caller of the library (the suite, a script) gets the same refusal."""
    Procedure(seed=2**63 - 1).check()
    with pytest.raises(ComparisonRefused, match=re.escape(said)):
        procedure.check()
