"""How the run measured latency, and whether it says so honestly.

Latency cannot be re-measured after the run, but the verdict on contention can be recomputed: the receipt
records wall time, process CPU time and run-queue wait over the timed calls, the load average before and
after and the usable cores, and the rule below (the harness's, restated here) must give the verdict the
receipt states. A contended run is named in words in the latency attestation: "latency measured under
contention".
"""

from typing import Any

from .report import Report

WAIT_FRACTION_CEILING = 0.10
CPU_RATIO_FLOOR = 0.80
LOAD_MARGIN = 1.0
CONTENDED = "latency measured under contention"


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


def check_latency(receipt: dict[str, Any], report: Report) -> None:
    measured = receipt["latency_measurement"]
    found = contention_reasons(measured)
    stated = measured["contended"] is True and bool(measured["contention"])
    report.expect("latency.contention", bool(found) == stated and measured["contended"] == bool(measured["contention"]),
                  "the contention verdict follows from the recorded CPU time, run-queue wait and load average",
                  "contended" if found else "not contended", measured["contention"] or "not contended")
    how = (f"warm-up {measured['warmup_calls']} calls, median of {measured['repeats_per_query']} timed calls per "
           f"query, load average {measured['load_average_before']} before and {measured['load_average_after']} after "
           f"on {measured['usable_cores']} cores, process CPU {measured['process_cpu_seconds']:.3f} s over "
           f"{measured['timed_wall_seconds']:.3f} s timed")
    verdict = measured["contention"] if stated else "no contention by the recorded rule"
    report.attest("latency", f"measured by the run and not re-measurable; {verdict} ({how}); what was checked: "
                  "every figure finite and non-negative (schema), the summary recomputed (aggregate.latency), the "
                  f"contention verdict recomputed (latency.contention), the scope recorded: "
                  f"{receipt['retrieval']['latency_scope']}")
