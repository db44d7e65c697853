"""The scale benchmark: for each size and system, a fresh build, then open and search, then (built-in system) the
validator's replay, each phase in its own process; every figure goes into one JSON, rewritten after each phase so
that a benchmark cut off keeps what it measured."""

import json
import os
import platform
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.scale.measure import Limits, disk_bytes, run_phase
from benchmarks.scale.phases import SYSTEMS

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_LIMITS = Limits(8 * 2 ** 30, 900.0)  # the targets: 1M documents within 8 GiB, each phase within 15 min


@dataclass(frozen=True)
class Plan:
    sizes: tuple[int, ...]
    systems: tuple[str, ...] = SYSTEMS
    queries: int = 300
    seed: int = 0
    limits: Limits = DEFAULT_LIMITS


def machine() -> dict[str, Any]:
    memory = next((line.split()[1] for line in Path("/proc/meminfo").read_text().splitlines()
                   if line.startswith("MemTotal:")), "0")
    return {"cpus": os.cpu_count(), "memory_gib": round(int(memory) / 2 ** 20, 1), "python": platform.python_version(),
            "platform": platform.platform(), "processor": platform.processor() or platform.machine()}


def _measure(plan: Plan, size: int, system: str, work: Path) -> dict[str, Any]:
    shutil.rmtree(work, ignore_errors=True)  # a fresh build every time: a reused store would time nothing
    entry: dict[str, Any] = {"size": size, "system": system}
    for phase in ("corpus", "build", "query", "replay"):
        if phase == "corpus" and system != plan.systems[0]:
            continue  # the baseline of holding the corpus, once per size
        if phase == "replay" and system != "builtin":
            break  # the validator replays the lanes of the built-in system; a plugin's lexical lane it asks again
        figures = run_phase(phase, system, size, plan.seed, plan.queries, work, plan.limits, ROOT)
        entry[phase] = figures
        if phase == "build" and (work / "store").is_dir():
            # a build stopped half-way leaves a partial store: its size is no figure of the store
            entry["store_disk_bytes" if "failed" not in figures else "partial_store_disk_bytes"] = disk_bytes(
                work / "store")
        if "failed" in figures:
            break
    return entry


def run(plan: Plan, out: Path, *, keep_stores: bool = False) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    document: dict[str, Any] = {"machine": machine(), "plan": {"sizes": list(plan.sizes), "systems": list(plan.systems),
                                "queries": plan.queries, "seed": plan.seed,
                                "memory_limit_bytes": plan.limits.memory_bytes,
                                "phase_limit_seconds": plan.limits.seconds}, "results": []}
    for size in plan.sizes:
        for system in plan.systems:
            work = out / f"{system}-{size}"
            document["results"].append(_measure(plan, size, system, work))
            (out / "scale.json").write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
            if not keep_stores:
                shutil.rmtree(work / "store", ignore_errors=True)
    return document
