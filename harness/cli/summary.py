"""What a finished step prints: one line per mode and split, the validator's verdict, and the next command."""

import os
import shlex
import sys
from pathlib import Path
from typing import Any

from harness.errors import INTERNAL, SYSTEM_FAILED
from harness.evaluation.measures.contention import contention_note
from harness.evaluation.runner import ModeRun
from harness.validator.core.report import Report

BUILTIN = "builtin"  # the default system, named on no command line
SUMMARY_PROPERTY = "scifact_summary"  # the user property an evaluation test records its result line under
SPEND_HELDOUT = "--scifact-spend-heldout"  # the pytest opt-in without which held-out tests are held back

def shown(path: Path | str) -> str:
    """A path as the user would type it: relative to the working directory when it lies inside it (symbolic
    links kept, so a virtualenv's python stays .venv/bin/python)."""
    absolute = Path(os.path.abspath(path))
    try:
        return str(absolute.relative_to(Path(os.path.abspath(Path.cwd()))))
    except ValueError:
        return str(absolute)


def python() -> str:
    return shown(sys.executable)


def verdict(report: Report) -> str:
    if report.eligible:
        return "ELIGIBLE"
    if report.failed:
        failed = [c.name for c in report.failed]
        unpinned = " - the fixture is not the pinned dataset: not SciFact results" if "corpus.pinned" in failed else ""
        return "NOT ELIGIBLE (failed: " + ", ".join(failed) + ")" + unpinned
    return "NOT VERIFIED (" + ", ".join(c.name for c in report.not_verified) + ")"


def fewer_than_top_k(aggregate: dict[str, Any]) -> int:
    """Answered queries whose ranking is shorter than top_k, from `result_count_distribution` (a failed query ranks
    nothing and is counted among the failures instead)."""
    metrics, top_k = aggregate["metrics"], aggregate["receipt"]["retrieval"]["top_k"]
    short = sum(count for size, count in metrics["result_count_distribution"].items() if int(size) < top_k)
    return int(short - metrics["failures"])


def result_line(aggregate: dict[str, Any], aggregate_path: Path, verdict_text: str) -> str:
    m = aggregate["metrics"]
    latency = m["latency_ms"]
    short = fewer_than_top_k(aggregate)
    fewer = (f"{short} {'query' if short == 1 else 'queries'} returned fewer than "
             f"{aggregate['receipt']['retrieval']['top_k']} results  ") if short else ""
    return (f"{aggregate['mode']:<12} {aggregate['split']:<12} nDCG@10 {m['ndcg_at_10']:.4f}  "
            f"R@10 {m['recall_at_10']:.4f}  MRR@10 {m['mrr_at_10']:.4f}  MAP@10 {m['map_at_10']:.4f}  "
            f"S@1 {m['success_at_1']:.4f}  p50 {latency['p50']:.3f} ms  p95 {latency['p95']:.3f} ms  "
            f"failures {m['failures']}  {fewer}{verdict_text}  -> {shown(aggregate_path)}"
            + ("" if (note := contention_note(aggregate)) is None else f"\n  {note}"))


def failure_lines(runs: list[ModeRun]) -> tuple[list[str], int]:
    """What ends a run whose queries failed, named for whoever can fix them, and the exit code: SYSTEM_FAILED for
    the system's failures, INTERNAL when the harness failed a query; ([], 0) when none failed."""
    lines, code = [], 0
    for run in runs:
        name, total = run.aggregate["receipt"]["system"]["name"], run.aggregate["row_count"]
        system = [f for f in run.failures if f.failed_by == "system"]
        harness = [f for f in run.failures if f.failed_by != "system"]
        again = ("then run again with --replace" if run.split == "calibration" else "then calibrate again and freeze "
                 "in a new --store-dir and --output-dir (this store's held-out run is spent)")
        if system:
            lines.append(f"system {name!r} failed {len(system)} of {total} {run.mode} {run.split} queries (each row's "
                         f"error says why); the first, query {system[0].query_id}: {system[0].cause}. Fix the "
                         f"system, {again}")
            code = code or SYSTEM_FAILED
        if harness:
            lines.append(f"the harness failed {len(harness)} of {total} {run.mode} {run.split} queries of system "
                         f"{name!r}, a fault of the harness, not of the system; the first, query "
                         f"{harness[0].query_id}: {harness[0].cause}: report it")
            code = INTERNAL
    return lines, code


def command(*words: str | Path) -> str:
    return " ".join(shlex.quote(str(word)) for word in words)


def _system(system: str) -> list[str]:
    return [] if system == BUILTIN else ["--system", system]


def next_step(split: str, *, work_dir: Path, corpus: Path, store_dir: Path, output_dir: Path,
              system: str = BUILTIN) -> str:
    """The command that follows a finished split on the documented path."""
    if split == "calibration":
        return "next, after committing: freeze the configuration:\n  " + command(
            python(), "-m", "harness", "freeze", "--corpus", shown(corpus), "--store-dir", shown(store_dir),
            "--output-dir", shown(output_dir), *_system(system))
    bundle = command(python(), "-m", "harness", "bundle", "--output-dir", shown(output_dir), "--bundle-dir",
                     shown(work_dir / "bundle"))
    if split == "heldout":
        final = command(python(), "-m", "pytest", "-m", "final", SPEND_HELDOUT,
                        *pytest_options(work_dir=work_dir, store_dir=store_dir, output_dir=output_dir, system=system))
        bars = "" if system == BUILTIN else (" (add --scifact-quality-bar MODE=VALUE for each bar your system must "
                                             "reach)")
        return (f"next: optionally the all-query receipts and quality bars{bars}:\n  {final}\nthen the bundle:\n  "
                f"{bundle}")
    return f"next: the bundle:\n  {bundle}"


def pytest_options(*, work_dir: Path, store_dir: Path, output_dir: Path, system: str = BUILTIN) -> list[str]:
    """--scifact-work-dir, plus --scifact-store-dir, --scifact-output-dir and --scifact-system where they are not the
    defaults."""
    options = ["--scifact-work-dir", shown(work_dir)] + ([] if system == BUILTIN else ["--scifact-system", system])
    if store_dir.resolve() != (work_dir / "store").resolve():
        options += ["--scifact-store-dir", shown(store_dir)]
    if output_dir.resolve() != (work_dir / "results").resolve():
        options += ["--scifact-output-dir", shown(output_dir)]
    return options


def after_freeze(*, corpus: Path, store_dir: Path, output_dir: Path, system: str = BUILTIN) -> str:
    """The held-out step; the work dir is taken to be the fixture's directory, where the builder puts it."""
    pytest_form = command(python(), "-m", "pytest", "-m", "heldout", SPEND_HELDOUT,
                          *pytest_options(work_dir=corpus.parent, store_dir=store_dir, output_dir=output_dir,
                                          system=system))
    cli_form = command(python(), "-m", "harness", "run", "--corpus", shown(corpus), "--store-dir", shown(store_dir),
                       "--output-dir", shown(output_dir), "--split", "heldout", *_system(system))
    return (f"next: the held-out run (once per mode and store; each look is counted in this machine's held-out "
            f"record):\n  {pytest_form}\n  or: {cli_form}")
