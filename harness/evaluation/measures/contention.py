"""How the latency figures were measured, and whether other work on the machine got in their way.

A run warms up (the first WARMUP_CALLS queries searched once, untimed), then times every query REPEATS
times and keeps the median. Around all timed calls it records wall time, the process's CPU time, the time
its threads spent runnable but waiting for a CPU (the kernel's run-queue wait, /proc/self/task/*/schedstat,
where the kernel exposes it) and the load average before and after. The run is judged contended when:

- its threads waited for a CPU more than WAIT_FRACTION_CEILING seconds per second of timed wall time (summed
  over the threads, so several waiting threads can exceed 1), or
- the process had the CPU for less than CPU_RATIO_FLOOR of the timed wall time (the search is CPU-bound,
  so a quiet machine keeps it near 1), or
- the 1-minute load average before or after exceeded the usable cores by more than LOAD_MARGIN.

A system that searches in a worker process of its own has that process's CPU time and run-queue wait added to
the harness's. A contended run's receipt, terminal summary, CLAIMS.md and the validator's report all say "latency
measured under contention" with the reasons. When none of the rules fires but the load average or the run-queue
wait could not be read (a machine or kernel that does not report them), quiet is not established: the verdict is
"contention unknown", naming what was missing, never "no contention". The validator applies the same rule to the
recorded figures.
"""

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .threads import POLICY

WARMUP_CALLS = 10
REPEATS = 5
WAIT_FRACTION_CEILING = 0.10
CPU_RATIO_FLOOR = 0.80
LOAD_MARGIN = 1.0
CONTENDED = "latency measured under contention"
WORKER_NOTE = ("; the system searched in a worker process of its own: the CPU time and run-queue wait are the "
               "harness's process and the worker's together")
UNKNOWN = "contention unknown"
# receipt field -> its name in the "contention unknown" verdict (the validator checks each missing one is named)
MEASUREMENTS = {"load_average_before": "load average before", "load_average_after": "load average after",
                "runqueue_wait_seconds": "run-queue wait"}
RULE = (f"contended when threads waited for a CPU more than {WAIT_FRACTION_CEILING:g} s per second of timed wall time "
        "(summed over threads), "
        f"or the process had a CPU less than {CPU_RATIO_FLOOR:.0%} of it, or the 1-minute load average before "
        f"or after exceeded the usable cores by more than {LOAD_MARGIN:g}")


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def task_times_ns(process: str = "self") -> tuple[int, int] | None:
    """(nanoseconds on a CPU, nanoseconds runnable but waiting for one) summed over a process's threads, or None when
    unreadable."""
    cpu = wait = 0
    try:
        for task in Path(f"/proc/{process}/task").iterdir():
            try:
                fields = (task / "schedstat").read_text().split()
                cpu, wait = cpu + int(fields[0]), wait + int(fields[1])
            except FileNotFoundError:  # a thread that ended while we looked
                continue
    except (OSError, ValueError, IndexError):
        return None
    return cpu, wait


def runqueue_wait_ns() -> int | None:
    """Nanoseconds this process's threads have spent runnable but not running, or None when unreadable."""
    times = task_times_ns()
    return None if times is None else times[1]


def load_average() -> list[float] | None:
    try:
        return [round(value, 2) for value in os.getloadavg()]
    except OSError:
        return None


@dataclass(frozen=True)
class Snapshot:
    wall: float
    cpu: float
    wait_ns: int | None
    load: list[float] | None

    @staticmethod
    def take(workers: tuple[int, ...] = ()) -> "Snapshot":
        """`workers`: the processes that answer the searches besides this one; their CPU time and wait count too."""
        cpu, wait = time.process_time(), runqueue_wait_ns()
        for pid in workers:
            times = task_times_ns(str(pid))
            if times is None:  # unreadable: its CPU time is missing (the ratio errs towards 'contended')
                wait = None
                continue
            cpu, wait = cpu + times[0] / 1e9, None if wait is None else wait + times[1]
        return Snapshot(time.perf_counter(), cpu, wait, load_average())


def reasons(*, wall_seconds: float, cpu_seconds: float, wait_seconds: float | None,
            load_before: list[float] | None, load_after: list[float] | None, cores: int) -> list[str]:
    """Why the timed region counts as contended; empty when it does not."""
    found = []
    if wall_seconds > 0 and wait_seconds is not None and wait_seconds / wall_seconds > WAIT_FRACTION_CEILING:
        found.append(f"threads waited for a CPU {wait_seconds / wall_seconds:.2f} s per second of timed wall time")
    if wall_seconds > 0 and cpu_seconds / wall_seconds < CPU_RATIO_FLOOR:
        found.append(f"the process had a CPU {cpu_seconds / wall_seconds:.0%} of the timed wall time")
    loads = [load[0] for load in (load_before, load_after) if load is not None]
    if loads and max(loads) > cores + LOAD_MARGIN:
        found.append(f"1-minute load average {max(loads):.2f} on {cores} usable cores")
    return found


def verdict(found: list[str], figures: dict[str, Any]) -> tuple[bool | None, str | None]:
    """(contended, the verdict in words): contended with its reasons; else unknown when a measurement is missing
    (`figures` holds the receipt's fields of MEASUREMENTS); else quiet (False, None)."""
    if found:
        return True, f"{CONTENDED}: {'; '.join(found)}"
    missing = [name for field, name in MEASUREMENTS.items() if figures[field] is None]
    if missing:
        return None, (f"{UNKNOWN}: no rule found contention in what was recorded, but the {', the '.join(missing)} "
                      "could not be read on this machine")
    return False, None


def measurement(before: Snapshot, after: Snapshot, *, warmup_calls: int, repeats: int,
                blas: list[dict[str, Any]], workers: int = 0) -> dict[str, Any]:
    """The receipt's account of how latency was measured, with the contention verdict."""
    wall, cpu = after.wall - before.wall, after.cpu - before.cpu
    wait = None if before.wait_ns is None or after.wait_ns is None else (after.wait_ns - before.wait_ns) / 1e9
    cores = usable_cores()
    found = reasons(wall_seconds=wall, cpu_seconds=cpu, wait_seconds=wait, load_before=before.load,
                    load_after=after.load, cores=cores)
    contended, words = verdict(found, {"load_average_before": before.load, "load_average_after": after.load,
                                       "runqueue_wait_seconds": wait})
    return {
        "warmup_calls": warmup_calls,
        "repeats_per_query": repeats,
        "statistic": f"each row's latency_ms is the median of its {repeats} timed calls",
        "thread_policy": {"blas": blas, "pinned": False, "note": POLICY + (WORKER_NOTE if workers else "")},
        "usable_cores": cores,
        "load_average_before": before.load,
        "load_average_after": after.load,
        "timed_wall_seconds": wall,
        "process_cpu_seconds": cpu,
        "runqueue_wait_seconds": wait,
        "rule": RULE,
        "contended": contended,
        "contention": words,
    }


def contention_note(aggregate: dict[str, Any]) -> str | None:
    """The words a summary or a claim repeats for a contended run or one whose contention is unknown, or None for a
    quiet one; older receipts say nothing."""
    measured = aggregate.get("receipt", {}).get("latency_measurement") or {}
    return None if measured.get("contended") is False else measured.get("contention")
