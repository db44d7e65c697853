"""The validator's own paired statistics, written from the procedure a comparison states, not from its producer.

Draws: numpy's PCG64 bit generator, seeded as recorded, read through random_raw: resamples x n words for the
bootstrap (each mod n), then permutations x n words for the signs (top bit set: -1). Everything after the
draws is computed another way than the producer does: resample means through per-query counts, sign-flip
sums as total - 2 x (sum of the flipped differences), Student's t from the closed-form finite series for
integer degrees of freedom (Abramowitz and Stegun 26.7.3 and 26.7.4), its one-sided tails from the two-sided one by
symmetry, Holm by an explicit step-down pass.
"""

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

TOP_BIT = np.uint64(1) << np.uint64(63)


@dataclass(frozen=True)
class Sample:
    counts: NDArray[np.float64]  # resamples x n: how often each query is drawn into each resample
    flipped: NDArray[np.float64]  # permutations x n: 1.0 where the sign is -1


def sample(seed: int, n: int, resamples: int, permutations: int) -> Sample:
    generator = np.random.PCG64(seed)
    picks = generator.random_raw(resamples * n) % np.uint64(n)
    rows = np.repeat(np.arange(resamples, dtype=np.int64), n)
    counts = np.bincount(rows * n + picks.astype(np.int64), minlength=resamples * n).reshape(resamples, n)
    flipped = (generator.random_raw(permutations * n) & TOP_BIT) != 0
    return Sample(counts.astype(np.float64), flipped.reshape(permutations, n).astype(np.float64))


def exact_mean(values: list[float]) -> float:
    return math.fsum(values) / len(values)


def percentile(sorted_values: NDArray[np.float64], q: float) -> float:
    """Type-7 quantile: the order statistics around position (m - 1) q, linearly weighted."""
    position = q * (len(sorted_values) - 1)
    below = int(position)
    weight = position - below
    above = below + 1 if below + 1 < len(sorted_values) else below
    return float((1.0 - weight) * sorted_values[below] + weight * sorted_values[above])


def interval(values: list[float], drawn: Sample) -> tuple[float, float]:
    vector = np.array(values, dtype=np.float64)
    means = np.sort(np.einsum("ij,j->i", drawn.counts, vector) / len(values))
    return percentile(means, 0.025), percentile(means, 0.975)


def sign_flip(differences: list[float], drawn: Sample, margin: float) -> int:
    """How many permutations reach at least |observed sum| - margin."""
    vector = np.array(differences, dtype=np.float64)
    total = math.fsum(differences)
    permuted = total - 2.0 * np.einsum("ij,j->i", drawn.flipped, vector)
    return int((np.abs(permuted) >= abs(total) - margin).sum())


def sign_flip_directed(differences: list[float], drawn: Sample, margin: float, greater: bool) -> int:
    """How many permutations reach at least the observed sum - margin (`greater`), or at most it + margin."""
    vector = np.array(differences, dtype=np.float64)
    total = math.fsum(differences)
    permuted = total - 2.0 * np.einsum("ij,j->i", drawn.flipped, vector)
    beyond = permuted >= total - margin if greater else permuted <= total + margin
    return int(beyond.sum())


def standard_deviation(values: list[float]) -> float | None:
    if len(values) < 2:
        return None
    return float(np.std(np.array(values, dtype=np.float64), ddof=1))


def student_two_sided(t: float, df: int) -> float:
    """P(|T| >= |t|), Student's t with integer df, from the finite series (A&S 26.7.3-4)."""
    theta = math.atan(abs(t) / math.sqrt(df))
    s, c2 = math.sin(theta), math.cos(theta) ** 2
    if df % 2 == 1:
        series, term = 0.0, math.cos(theta)
        for k in range(1, (df - 1) // 2 + 1):
            series += term
            term *= c2 * (2 * k) / (2 * k + 1)
        inside = (2.0 / math.pi) * (theta + s * series)
    else:
        series, term = 0.0, 1.0
        for k in range(df // 2):
            series += term
            term *= c2 * (2 * k + 1) / (2 * k + 2)
        inside = s * series
    return min(1.0, max(0.0, 1.0 - inside))


def student_one_sided(t: float, df: int, greater: bool) -> float:
    """P(T >= t) when `greater`, else P(T <= t): the symmetric distribution's two-sided tail halved on t's side."""
    half = student_two_sided(t, df) / 2.0
    toward = t > 0.0 if greater else t < 0.0
    return half if toward or t == 0.0 else 1.0 - half


def t_test(differences: list[float]) -> tuple[float | None, float | None]:
    sd = standard_deviation(differences)
    if sd is None or sd == 0.0:
        return None, None
    t = exact_mean(differences) * math.sqrt(len(differences)) / sd
    return t, student_two_sided(t, len(differences) - 1)


def holm(p_values: list[float]) -> list[float]:
    m = len(p_values)
    ranked = sorted(enumerate(p_values), key=lambda item: (item[1], item[0]))
    out = [1.0] * m
    floor = 0.0
    for position, (index, p) in enumerate(ranked, start=1):
        value = (m - position + 1) * p
        floor = value if value > floor else floor
        out[index] = 1.0 if floor > 1.0 else floor
    return out
