"""What CLAIMS.md says about how each run's latency was measured, contention named in words."""

from typing import Any

from harness.evaluation.measures.contention import contention_note
from harness.publish.text.markdown_text import code, inert


def latency_lines(aggregates: list[dict[str, Any]]) -> list[str]:
    lines = []
    for aggregate in aggregates:
        measured = aggregate["receipt"].get("latency_measurement")
        if measured is None:
            continue
        note = contention_note(aggregate) or "no contention by the recorded rule"
        lines.append(f"- {code(aggregate['mode'])} {inert(aggregate['split'])}: {inert(note)} (median of "
                     f"{inert(measured['repeats_per_query'])} timed calls per query after "
                     f"{inert(measured['warmup_calls'])} warm-up calls; load average "
                     f"{inert(measured['load_average_before'])} before, {inert(measured['load_average_after'])} "
                     f"after, on {inert(measured['usable_cores'])} cores)")
    return ["", "How latency was measured:", "", *lines] if lines else []
