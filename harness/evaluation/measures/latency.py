"""Latency: the nearest-rank percentile and the summary an aggregate records of its rows' latencies."""

import math
from collections.abc import Sequence


def nearest_rank(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile: sorted[max(0, ceil(q * n) - 1)]."""
    if not values:
        raise ValueError("no values")
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"percentile {q} is outside [0, 1]")
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def latency_summary(latencies_ms: Sequence[float]) -> dict[str, float]:
    return {
        "mean": math.fsum(latencies_ms) / len(latencies_ms),
        "p50": nearest_rank(latencies_ms, 0.50),
        "p95": nearest_rank(latencies_ms, 0.95),
        "max": max(latencies_ms),
    }
