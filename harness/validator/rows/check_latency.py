"""How the run measured latency, and whether it says so honestly.

Latency cannot be re-measured after the run, but the verdict on contention can be recomputed: the receipt
records wall time, process CPU time and run-queue wait over the timed calls, the load average before and
after and the usable cores, and the rule below (the harness's, restated here) must give the verdict the
receipt states. A contended run is named in words in the latency attestation: "latency measured under
contention". When no rule fires but the load average or the run-queue wait was not recorded (null), quiet is not
established: the verdict must be "contention unknown" (contended null), naming each missing measurement.
"""

from typing import Any

from ..core.report import Report

WAIT_FRACTION_CEILING = 0.10
CPU_RATIO_FLOOR = 0.80
LOAD_MARGIN = 1.0
CONTENDED = "latency measured under contention"
UNKNOWN = "contention unknown"
MEASUREMENTS = {"load_average_before": "load average before", "load_average_after": "load average after",
                "runqueue_wait_seconds": "run-queue wait"}


def contention_reasons(measured: dict[str, Any]) -> list[str]:
    wall, cpu, wait = measured["timed_wall_seconds"], measured["process_cpu_seconds"], measured["runqueue_wait_seconds"]
    found = []
    if wall > 0 and wait is not None and wait / wall > WAIT_FRACTION_CEILING:
        found.append("run-queue wait")
    if wall > 0 and cpu / wall < CPU_RATIO_FLOOR:
        found.append("CPU time against wall time")
    loads = [load[0] for load in (measured["load_average_before"], measured["load_average_after"]) if load]
    if loads and max(loads) > measured["usable_cores"] + LOAD_MARGIN:
        found.append("load average")
    return found


def _stated(measured: dict[str, Any]) -> str:
    contended, words = measured["contended"], measured["contention"] or ""
    if contended is True and words.startswith(f"{CONTENDED}: "):
        return "contended"
    if contended is None and words.startswith(f"{UNKNOWN}: "):
        return UNKNOWN
    return "not contended" if contended is False and measured["contention"] is None else f"{contended!r}: {words!r}"


def verdict(measured: dict[str, Any]) -> tuple[str, list[str]]:
    """The verdict the recorded figures give (contended, contention unknown, not contended), and the measurements
    the unknown verdict must name."""
    if contention_reasons(measured):
        return "contended", []
    missing = [name for field, name in MEASUREMENTS.items() if measured[field] is None]
    return (UNKNOWN, missing) if missing else ("not contended", [])


def check_latency(receipt: dict[str, Any], report: Report) -> None:
    measured = receipt["latency_measurement"]
    expected, missing = verdict(measured)
    unnamed = [name for name in missing if name not in (measured["contention"] or "")]
    wanted = expected + (f" ({', '.join(missing)})" if missing else "")
    report.expect("latency.contention", _stated(measured) == expected and not unnamed,
                  "the contention verdict follows from the recorded CPU time, run-queue wait and load average (unknown "
                  "when a measurement is missing, naming it)", wanted, measured["contention"] or "not contended")
    how = (f"warm-up {measured['warmup_calls']} calls, median of {measured['repeats_per_query']} timed calls per "
           f"query, load average {measured['load_average_before']} before and {measured['load_average_after']} after "
           f"on {measured['usable_cores']} cores, process CPU {measured['process_cpu_seconds']:.3f} s over "
           f"{measured['timed_wall_seconds']:.3f} s timed")
    stated = measured["contention"] if measured["contended"] is not False else "no contention by the recorded rule"
    report.attest("latency", f"measured by the run and not re-measurable; {stated} ({how}); what was checked: "
                  "every figure finite and non-negative (schema), the summary recomputed (aggregate.latency), the "
                  f"contention verdict recomputed (latency.contention), the scope recorded: "
                  f"{receipt['retrieval']['latency_scope']}")
