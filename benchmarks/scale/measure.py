"""Run one phase in a child process and measure it from outside: wall time, peak RSS (the kernel's `ru_maxrss` of
that child, from `os.wait4`), and a watchdog that stops a child above a memory cap or past a time limit and says
which, with the figure it reached."""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class Limits:
    memory_bytes: int
    seconds: float


def rss_bytes(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def disk_bytes(directory: Path) -> int:
    """What `du` counts: the blocks allocated to every file under the directory."""
    return sum(os.lstat(Path(root) / name).st_blocks * 512 for root, _, files in os.walk(directory) for name in files)


def run_phase(phase: str, system: str, size: int, seed: int, queries: int, work: Path, limits: Limits,
              cwd: Path) -> dict[str, Any]:
    """The child writes its output to files in `work` and is reaped by `os.wait4` alone, for its own rusage."""
    command = [sys.executable, "-m", "benchmarks.scale.child", phase, system, str(size), str(seed), str(queries),
               str(work)]
    work.mkdir(parents=True, exist_ok=True)
    out, err = work / f"{phase}.stdout", work / f"{phase}.stderr"
    (work / f"{phase}.partial.json").unlink(missing_ok=True)
    started, load = time.perf_counter(), os.getloadavg()[0]
    with out.open("w") as stdout, err.open("w") as stderr:
        child = subprocess.Popen(command, cwd=cwd, stdout=stdout, stderr=stderr)
    done, stopped = threading.Event(), []

    def watch() -> None:
        while not done.wait(0.25):
            rss, elapsed = rss_bytes(child.pid), time.perf_counter() - started
            if rss > limits.memory_bytes or elapsed > limits.seconds:
                stopped.append(f"stopped at {rss / 2 ** 30:.2f} GiB RSS after {elapsed:.0f} s (limits "
                               f"{limits.memory_bytes / 2 ** 30:.1f} GiB, {limits.seconds:.0f} s)")
                if not done.is_set():
                    os.kill(child.pid, signal.SIGKILL)
                return

    watchdog = threading.Thread(target=watch, daemon=True)
    watchdog.start()
    _, status, usage = os.wait4(child.pid, 0)
    done.set()
    watchdog.join()
    child.returncode = code = os.waitstatus_to_exitcode(status)
    figures: dict[str, Any] = {"wall_seconds": time.perf_counter() - started,
                               "cpu_seconds": usage.ru_utime + usage.ru_stime,
                               "peak_rss_bytes": usage.ru_maxrss * 1024,  # Linux reports kilobytes
                               "load_average": {"start": load, "end": os.getloadavg()[0]}}
    if stopped or code != 0:
        figures["failed"] = stopped[0] if stopped else f"exit {code}: {err.read_text().strip()[-2000:]}"
        partial = work / f"{phase}.partial.json"  # what the phase measured before it was stopped
        return {**json.loads(partial.read_text()), **figures} if partial.is_file() else figures
    figures.update(json.loads(out.read_text().strip().splitlines()[-1]))
    return figures
