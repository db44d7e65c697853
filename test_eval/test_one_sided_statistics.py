"""The one-sided tests a directional hypothesis may declare, and Holm over a family, checked against scipy and by hand,
for the harness's statistics and, beside them, the validator's own:

- the one-sided paired t-test equals scipy.stats.ttest_rel(alternative="greater" / "less") to 1e-12;
- the one-sided sign-flip test, given every one of the 2^n sign vectors of a small n as its permutations, counts
  exactly what an enumeration counts (and scipy's exact permutation test agrees); with the PCG64 draws, its p lies
  within Monte Carlo error of the exact one;
- a family's adjustment is Holm's by hand, a member not tested counting as p = 1.
"""

import itertools
import math
from typing import Any

import numpy as np
import pytest
import scipy.stats

from fixtures.paired_rows import column, ranked_rows
from harness.evaluation.comparison import paired_statistics as stats
from harness.evaluation.comparison.procedure_terms import MIN_PERMUTATIONS
from harness.evaluation.comparison.student_t import one_sided_p
from harness.evaluation.measures.metrics import METRIC_KEYS
from harness.validator.comparison import paired_stats as independent

SEED = 11
PAIRS = [("vector_only", "fts_only"), ("hybrid", "fts_only"), ("hybrid", "vector_only")]
ROWS = ranked_rows(40, seed=3)
SMALL_N = 12


def _differences(rows: dict[str, list[dict[str, Any]]], a: str, b: str, metric: str) -> list[float]:
    return [x - y for x, y in zip(column(rows[a], metric), column(rows[b], metric), strict=True)]


@pytest.mark.parametrize("greater", [True, False], ids=["greater", "less"])
@pytest.mark.parametrize(("a", "b"), PAIRS)
@pytest.mark.parametrize("metric", METRIC_KEYS)
def test_the_one_sided_t_test_is_scipys_to_1e_12(greater: bool, a: str, b: str, metric: str) -> None:
    d = _differences(ROWS, a, b, metric)
    p = stats.one_sided_t_test(d, greater=greater)
    if float(np.std(d)) == 0.0:
        assert p is None
        return
    reference = scipy.stats.ttest_rel(column(ROWS[a], metric), column(ROWS[b], metric),
                                      alternative="greater" if greater else "less")
    assert p is not None and abs(p - float(reference.pvalue)) <= 1e-12, (p, reference.pvalue)
    t, _ = independent.t_test(d)
    assert t is not None
    mine = independent.student_one_sided(t, len(d) - 1, greater)
    assert abs(mine - float(reference.pvalue)) <= 1e-12, (mine, reference.pvalue)


@pytest.mark.parametrize("t", [-40.0, -2.5, -0.3, 0.0, 0.3, 2.5, 40.0])
@pytest.mark.parametrize("df", [1, 2, 7, 39, 199])
def test_the_one_sided_tails_are_students(t: float, df: int) -> None:
    for greater, reference in ((True, scipy.stats.t.sf(t, df)), (False, scipy.stats.t.cdf(t, df))):
        assert abs(one_sided_p(t, df, greater=greater) - float(reference)) <= 1e-12
        assert abs(independent.student_one_sided(t, df, greater) - float(reference)) <= 1e-12


def _every_sign(n: int) -> np.ndarray[Any, np.dtype[np.float64]]:
    return np.array(list(itertools.product((1.0, -1.0), repeat=n)), dtype=np.float64)


def _enumerated(d: list[float], greater: bool) -> int:
    """The sign vectors whose sum reaches the observed one in the direction, counted one by one."""
    observed = math.fsum(d)
    sums = (math.fsum(s * x for s, x in zip(signs, d, strict=True))
            for signs in itertools.product((1.0, -1.0), repeat=len(d)))
    if greater:
        return sum(total >= observed - stats.TIE_MARGIN for total in sums)
    return sum(total <= observed + stats.TIE_MARGIN for total in sums)


@pytest.mark.parametrize("greater", [True, False], ids=["greater", "less"])
@pytest.mark.parametrize(("a", "b"), PAIRS)
@pytest.mark.parametrize("metric", ["ndcg_at_10", "success_at_5", "map_at_10"])
def test_the_one_sided_sign_flip_test_is_the_exact_enumeration(greater: bool, a: str, b: str, metric: str) -> None:
    small = {mode: rows[:SMALL_N] for mode, rows in ROWS.items()}
    d = _differences(small, a, b, metric)
    every = _every_sign(SMALL_N)
    extreme, p = stats.one_sided_randomization_test(d, every, greater=greater)
    assert extreme == _enumerated(d, greater)
    assert p == (extreme + 1) / (len(every) + 1)
    flipped = independent.Sample(np.zeros((1, SMALL_N)), (every == -1.0).astype(np.float64))
    assert independent.sign_flip_directed(d, flipped, stats.TIE_MARGIN, greater) == extreme
    exact = extreme / 2 ** SMALL_N
    reference = scipy.stats.permutation_test(
        (column(small[a], metric), column(small[b], metric)), lambda x, y: np.mean(x - y),
        permutation_type="samples", alternative="greater" if greater else "less", n_resamples=np.inf)
    assert abs(float(reference.pvalue) - exact) <= 1e-12, (reference.pvalue, exact)
    drawn = stats.draws(SEED, SMALL_N, 1000, MIN_PERMUTATIONS)
    _, monte_carlo_p = stats.one_sided_randomization_test(d, drawn.signs, greater=greater)
    error = math.sqrt(exact * (1 - exact) / MIN_PERMUTATIONS)
    assert abs(monte_carlo_p - exact) <= 4.5 * error + 1 / (MIN_PERMUTATIONS + 1), (monte_carlo_p, exact)


def test_a_one_sided_p_is_half_the_two_sided_one_in_its_direction() -> None:
    """Away from ties, the two tails of a symmetric sign-flip distribution: the one in the data's direction is about
    half the two-sided p, the other about 1 minus that half."""
    d = _differences(ROWS, "hybrid", "vector_only", "ndcg_at_10")
    assert stats.mean(d) > 0
    drawn = stats.draws(SEED, len(d), 1000, MIN_PERMUTATIONS)
    _, two = stats.randomization_test(d, drawn.signs)
    _, toward = stats.one_sided_randomization_test(d, drawn.signs, greater=True)
    _, away = stats.one_sided_randomization_test(d, drawn.signs, greater=False)
    assert toward < two < away
    assert abs(toward - two / 2) <= 0.01 and abs(away - (1 - two / 2)) <= 0.01


def test_a_family_is_adjusted_by_holm_by_hand() -> None:
    """m = 3 declared, one member not tested here (p = 1): 0.01 x 3 = 0.03, 0.02 x 2 = 0.04, 1 x 1 = 1."""
    assert stats.holm([0.02, 1.0, 0.01]) == pytest.approx([0.04, 1.0, 0.03], abs=1e-15)
    assert independent.holm([0.02, 1.0, 0.01]) == pytest.approx([0.04, 1.0, 0.03], abs=1e-15)
    # a family of one is read unadjusted; two ties keep the running maximum
    assert stats.holm([0.04]) == [0.04] and stats.holm([0.03, 0.03]) == [0.06, 0.06]
