"""The validator's own fusions: a hybrid's fused score recomputed from its lane evidence, as the system declares it.

rrf (k, candidate depth): 1 / (k + rank) summed over the lanes that ranked the document, lexical first. convex
(weight, normalisation, candidate depth): (1 - weight) * lexical + weight * dense, each lane's score normalised by
that lane's statistics over its candidates (min-max: (s - min) / (max - min), 0 when max is min; z-score:
(s - mean) / std, 0 when std is 0); a document the lane did not return takes the lane's floor, the normalised value
of its minimum (0 without candidates). Python floats (float64) throughout, in this order. Written from the
definition in docs/systems.md, not from the harness's code.
"""

import math
from collections.abc import Mapping, Sequence
from typing import Any

LANE_ORDER = ("lexical", "dense")
STATISTICS = ("candidates", "min", "max", "mean", "std")


def rrf(ranks: Mapping[str, int | None], k: int) -> float:
    fused = 0.0
    for lane in LANE_ORDER:
        rank = ranks.get(lane)
        if rank is not None:
            fused += 1.0 / (k + rank)
    return fused


def lane_value(score: float | None, stats: Mapping[str, Any], normalisation: str) -> float:
    """A lane's normalised score of one document; None (not returned by the lane): the lane's floor."""
    if not stats["candidates"]:
        return 0.0
    low, high, mean, std = float(stats["min"]), float(stats["max"]), float(stats["mean"]), float(stats["std"])
    value = low if score is None else float(score)
    if normalisation == "min-max":
        return 0.0 if high == low else (value - low) / (high - low)
    return 0.0 if std == 0.0 else (value - mean) / std


def convex(scores: Mapping[str, float | None], statistics: Mapping[str, Mapping[str, Any]], weight: float,
           normalisation: str) -> float:
    lexical = lane_value(scores.get("lexical"), statistics["lexical"], normalisation)
    dense = lane_value(scores.get("dense"), statistics["dense"], normalisation)
    return (1.0 - weight) * lexical + weight * dense


def statistics_of(scores: Sequence[float]) -> dict[str, Any]:
    """A lane's statistics over its candidates' scores: mean the exact sum over n, std the population deviation."""
    if not scores:
        return dict.fromkeys(STATISTICS, None) | {"candidates": 0}
    values = [float(score) for score in scores]
    mean = math.fsum(values) / len(values)
    std = math.sqrt(math.fsum((value - mean) ** 2 for value in values) / len(values))
    return {"candidates": len(values), "min": min(values), "max": max(values), "mean": mean, "std": std}


def statistics_problem(stats: Mapping[str, Any], depth: int) -> str | None:
    """What is wrong with one lane's recorded statistics, or None."""
    count, numbers = stats["candidates"], [stats[key] for key in STATISTICS[1:]]
    if not 0 <= count <= depth:
        return f"candidates {count} is not from 0 to the candidate depth {depth}"
    if count == 0:
        return None if all(value is None for value in numbers) else "a lane without candidates has no statistics"
    if any(value is None or not math.isfinite(value) for value in numbers):
        return f"min, max, mean and std are finite numbers for a lane with candidates, found {numbers}"
    if stats["min"] > stats["max"] or stats["std"] < 0:
        return f"min {stats['min']!r} above max {stats['max']!r}, or std {stats['std']!r} below 0"
    return None


def declared_fields(fusion: Mapping[str, Any]) -> dict[str, Any]:
    """What a row's search receipt must state of the declared fusion."""
    keys = ("method", "k", "candidate_depth") if fusion.get("method") == "rrf" else (
        "method", "weight", "normalisation", "candidate_depth")
    return {key: fusion.get(key) for key in keys}


def statistics_difference(recorded: Mapping[str, Any], replayed: Sequence[float], tolerance: float) -> str | None:
    """A lane's recorded statistics against the statistics of its replayed candidates: the same count, and each
    statistic within the replay's bound (three tolerances: a score's own, and a neighbour within twice it that the
    run may have cut instead; plus float64 rounding). None when they agree."""
    expected = statistics_of(replayed)
    if recorded["candidates"] != expected["candidates"]:
        return f"candidates {recorded['candidates']}, the replay {expected['candidates']}"
    for key in STATISTICS[1:] if expected["candidates"] else ():
        found, wanted = recorded[key], float(expected[key])
        if found is None or abs(found - wanted) > 3.0 * tolerance + 2.0 ** -40 * max(1.0, abs(wanted)):
            return f"{key} {found!r}, the replay {wanted:.9g} (tolerance {tolerance:.3g})"
    return None
