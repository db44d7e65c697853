"""Paired statistics over per-query metric values of two modes on the same queries.

Every random draw comes from numpy's PCG64 bit generator, seeded with the recorded seed, in the order
`draws` states, so anyone with the rows and the seed can reproduce every number (the validator does,
with its own code). The procedures in words are `PROCEDURES`; the comparison artifact records them.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from harness.evaluation.comparison.student_t import one_sided_p, two_sided_p

CONFIDENCE = 0.95
LOWER_QUANTILE, UPPER_QUANTILE = 0.025, 0.975
ALPHA = 0.05
TIE_MARGIN = 1e-9
PROCEDURE_ID = "scifact-paired-pcg64-v1"

PROCEDURES: dict[str, str] = {
    "random_generator": "numpy.random.PCG64(seed), read through random_raw(): unsigned 64-bit outputs, in order",
    "draw_order": "first resamples x n outputs, row-major (resample r, position i), each taken mod n as the index "
                  "of a query (bias below n / 2^64); then permutations x n outputs, row-major (permutation r, query "
                  "i), each giving the sign -1 when its top bit (bit 63) is set, else +1. One set of draws serves "
                  "every mode, pair and metric of the comparison.",
    "bootstrap": "paired percentile bootstrap: each resample draws n queries with replacement (the indices above) and "
                 "takes the mean of a mode's values, or of a pair's differences, over them; the 95% interval is the "
                 "0.025 and 0.975 quantiles of the resample means, linear interpolation between order statistics "
                 "(position (R - 1) q of the sorted means, counted from 0)",
    "randomization_test": "two-sided paired randomization (sign-flip) test of a mean difference of zero: with "
                          "differences d_i = a_i - b_i and S = sum of d_i, each permutation's S* = sum of s_i d_i; b "
                          "counts permutations with |S*| >= |S| - 1e-9 (the margin keeps ties in exact arithmetic "
                          "ties whatever the summation order); p = (b + 1) / (permutations + 1)",
    "t_test": "paired t-test: t = mean(d) / (sd(d) / sqrt(n)), sd with n - 1 degrees of freedom, two-sided p from "
              "Student's t with n - 1 degrees of freedom; null (undefined) when n < 2 or sd(d) = 0",
    "holm": "Holm's step-down adjustment of the randomization p-values: sort the family's m p-values ascending "
            "(ties by pair order), adjusted p_(j) = max over i <= j of min(1, (m - i + 1) p_(i)); a difference is "
            "significant when its adjusted p < alpha = 0.05",
    "holm_family": "for each metric separately, the pairs of modes this artifact compares on this split (all three "
                   "pairs, or each mode against the baseline); nDCG@10 is the primary metric, the others secondary",
    "effect_size": "standardized mean difference of paired observations (Cohen's d_z): mean(d) / sd(d), sd with n - 1 "
                   "degrees of freedom; null when n < 2 or sd(d) = 0",
    "wins_ties_losses": "over queries: a wins when d_i > 0, ties when d_i = 0 (the metric values are equal), loses "
                        "when d_i < 0",
    "means": "a mode's mean is math.fsum of the per-query values / n, the aggregate's rule; a pair's mean difference "
             "is math.fsum of d_i / n",
}


@dataclass(frozen=True)
class Draws:
    """Bootstrap query indices (resamples x n) and sign-flip signs (permutations x n)."""

    indices: NDArray[np.intp]
    signs: NDArray[np.float64]


def draws(seed: int, n: int, resamples: int, permutations: int) -> Draws:
    bits = np.random.PCG64(seed)
    raw_indices = bits.random_raw(resamples * n)
    indices = (raw_indices % np.uint64(n)).astype(np.intp).reshape(resamples, n)
    raw_signs = bits.random_raw(permutations * n)
    signs = np.where((raw_signs >> np.uint64(63)) == 1, -1.0, 1.0).reshape(permutations, n)
    return Draws(indices, signs)


def mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values)


def _quantile(ordered: NDArray[np.float64], q: float) -> float:
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return float(ordered[low] + (position - low) * (ordered[high] - ordered[low]))


def bootstrap_interval(values: Sequence[float], indices: NDArray[np.intp]) -> tuple[float, float]:
    """The percentile interval of the resample means of `values` (one row of `indices` per resample)."""
    array = np.asarray(values, dtype=np.float64)
    means = np.sort(array[indices].sum(axis=1) / len(array))
    return _quantile(means, LOWER_QUANTILE), _quantile(means, UPPER_QUANTILE)


def randomization_test(differences: Sequence[float], signs: NDArray[np.float64]) -> tuple[int, float]:
    """(b, p): permutations at least as extreme as the observed sum, and p = (b + 1) / (permutations + 1)."""
    array = np.asarray(differences, dtype=np.float64)
    observed = abs(math.fsum(differences))
    permuted = np.abs((signs * array).sum(axis=1))
    extreme = int(np.count_nonzero(permuted >= observed - TIE_MARGIN))
    return extreme, (extreme + 1) / (len(signs) + 1)


def one_sided_randomization_test(differences: Sequence[float], signs: NDArray[np.float64], *,
                                 greater: bool) -> tuple[int, float]:
    """(b, p) of the sign-flip test in one direction: b counts permutations whose sum is at least the observed one
    (`greater`: H1 a > b) or at most it (H1 a < b), within the tie margin; p = (b + 1) / (permutations + 1)."""
    array = np.asarray(differences, dtype=np.float64)
    observed = math.fsum(differences)
    permuted = (signs * array).sum(axis=1)
    beyond = permuted >= observed - TIE_MARGIN if greater else permuted <= observed + TIE_MARGIN
    extreme = int(np.count_nonzero(beyond))
    return extreme, (extreme + 1) / (len(signs) + 1)


def spread(differences: Sequence[float]) -> float | None:
    """The sample standard deviation (n - 1 degrees of freedom); None when n < 2."""
    n = len(differences)
    if n < 2:
        return None
    centre = mean(differences)
    return math.sqrt(math.fsum((d - centre) ** 2 for d in differences) / (n - 1))


def t_test(differences: Sequence[float]) -> tuple[float | None, float | None]:
    """(t, two-sided p) of the paired t-test; (None, None) when undefined (n < 2 or no spread)."""
    sd = spread(differences)
    if sd is None or sd == 0.0:
        return None, None
    t = mean(differences) / (sd / math.sqrt(len(differences)))
    return t, two_sided_p(t, len(differences) - 1)


def one_sided_t_test(differences: Sequence[float], *, greater: bool) -> float | None:
    """The paired t-test's p in one direction (P(T >= t) for H1 a > b, P(T <= t) for H1 a < b); None when undefined."""
    t, _ = t_test(differences)
    return None if t is None else one_sided_p(t, len(differences) - 1, greater=greater)


def effect_size(differences: Sequence[float]) -> float | None:
    sd = spread(differences)
    return None if sd is None or sd == 0.0 else mean(differences) / sd


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: (p_values[i], i))
    adjusted = [0.0] * m
    running = 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, (m - step) * p_values[i]))
        adjusted[i] = running
    return adjusted


def paired_difference(a: Sequence[float], b: Sequence[float], sampled: Draws) -> dict[str, object]:
    """Everything the artifact states about one pair on one metric, Holm aside."""
    differences = [x - y for x, y in zip(a, b, strict=True)]
    low, high = bootstrap_interval(differences, sampled.indices)
    extreme, p_value = randomization_test(differences, sampled.signs)
    t, t_p = t_test(differences)
    return {
        "mean_difference": mean(differences), "ci_low": low, "ci_high": high,
        "randomization": {"extreme_count": extreme, "p_value": p_value},
        "t_test": {"statistic": t, "df": len(differences) - 1, "p_value": t_p},
        "effect_size": effect_size(differences),
        "wins": sum(d > 0 for d in differences), "ties": sum(d == 0 for d in differences),
        "losses": sum(d < 0 for d in differences),
    }
