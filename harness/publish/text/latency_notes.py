"""How each run's latency was measured, contention named in words: for CLAIMS.md, and beside every latency table and
plot of the report. A run is flagged unless its receipt records that no contention rule fired on a machine that
reported every measurement the rules read (evaluation.measures.contention)."""

from typing import Any

from harness.evaluation.measures.contention import contention_note
from harness.publish.text.markdown_text import code, inert

CONTENDED, UNKNOWN, QUIET, UNRECORDED = ("\u26a0 contended", "\u26a0 contention unknown", "quiet",
                                         "\u26a0 not recorded")


def contention_flag(aggregate: dict[str, Any]) -> str:
    """One run's contention in two words, for a table cell and a plot's legend; QUIET only when the receipt says so."""
    measured = aggregate["receipt"].get("latency_measurement")
    if measured is None:
        return UNRECORDED
    return {True: CONTENDED, None: UNKNOWN, False: QUIET}[measured["contended"]]


def contention_summary(aggregates: list[dict[str, Any]]) -> tuple[str, list[str]]:
    """For the runs of one latency table or plot: a sentence saying which were not measured on a quiet machine and what
    that means for their figures (or that all were quiet), and the reasons each flagged run's receipt gives."""
    flagged = [a for a in aggregates if contention_flag(a) != QUIET]
    if not flagged:
        return (f"Contention: none found for {', '.join(a['mode'] for a in aggregates)} (each receipt records a quiet "
                "run by the contention rule); the figures hold for the recorded machine only."), []
    modes = ", ".join(a["mode"] for a in flagged)
    reasons = [f"{a['mode']}: {contention_note(a) or 'the receipt records no latency measurement'}" for a in flagged]
    return (f"\u26a0 Contention: {len(flagged)} of {len(aggregates)} runs here ({modes}) were not measured on a quiet "
            "machine: their latencies include time spent waiting for a CPU and overstate the search's own cost; read "
            "them as this machine's conditions at the time, not as the system's speed."), reasons


def latency_line(aggregates: list[dict[str, Any]]) -> str:
    """The report's one sentence on latency beside its answer: how many runs were not measured on a quiet machine."""
    flagged = sum(contention_flag(a) != QUIET for a in aggregates)
    if not flagged:
        return ("Latency: every run was measured on a quiet machine by the contention rule; the figures hold for the "
                "recorded machine only.")
    return (f"\u26a0 Latency: {flagged} of {len(aggregates)} runs were not measured on a quiet machine (flagged beside "
            "each latency table and plot); their latencies include time spent waiting for a CPU.")


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
