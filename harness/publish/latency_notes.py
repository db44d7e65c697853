"""What CLAIMS.md says about how each run's latency was measured, contention named in words."""

from typing import Any

from harness.evaluation.contention import contention_note


def latency_lines(aggregates: list[dict[str, Any]]) -> list[str]:
    lines = []
    for aggregate in aggregates:
        measured = aggregate["receipt"].get("latency_measurement")
        if measured is None:
            continue
        note = contention_note(aggregate) or "no contention by the recorded rule"
        lines.append(f"- `{aggregate['mode']}` {aggregate['split']}: {note} (median of "
                     f"{measured['repeats_per_query']} timed calls per query after {measured['warmup_calls']} "
                     f"warm-up calls; load average {measured['load_average_before']} before, "
                     f"{measured['load_average_after']} after, on {measured['usable_cores']} cores)")
    return ["", "How latency was measured:", "", *lines] if lines else []
