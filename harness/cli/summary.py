"""What a finished step prints: one line per mode and split, the validator's verdict, and the next command."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.errors import CHECK_FAILED, INTERNAL, NOT_VERIFIED, SYSTEM_FAILED
from harness.evaluation.measures.contention import contention_note
from harness.typed_commands import harness_command, pytest_command, shown, validator_command

if TYPE_CHECKING:  # the pytest plugin imports this module for SystemChoice at every session's start
    from harness.evaluation.runner import ModeRun
    from harness.validator.core.report import Report

BUILTIN = "builtin"  # the default system, named on no command line
RUN_FILE = "run-file"  # a run made elsewhere (harness.systems.names), evaluated with `evaluate`
RUN_FILE_MODE = "run_file"  # its one mode (harness/schemas/modes.json)
SUMMARY_PROPERTY = "scifact_summary"  # the user property an evaluation test records its result line under
COMPARISON_PROPERTY = "scifact_comparison"  # the user property a comparison test records its lines under
SPEND_HELDOUT = "--scifact-spend-heldout"  # the pytest opt-in without which held-out tests are held back

def verdict(report: Report) -> str:
    if report.eligible:
        return "ELIGIBLE (ranking attested)" if report.notes.get("ranking") else "ELIGIBLE"
    if report.failed:
        failed = [c.name for c in report.failed]
        unpinned = " - the fixture is not the pinned dataset: no result on it" if "corpus.pinned" in failed else ""
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
    chosen = "".join(f"{name} {mean:.4f}  " for name, mean in aggregate.get("measures", {}).get("means", {}).items())
    timed = (f"p50 {latency['p50']:.3f} ms  p95 {latency['p95']:.3f} ms" if aggregate["mode"] != RUN_FILE_MODE
             else "latency not measured (a run file's rankings are read, not searched)")
    return (f"{aggregate['mode']:<12} {aggregate['split']:<12} nDCG@10 {m['ndcg_at_10']:.4f}  "
            f"R@10 {m['recall_at_10']:.4f}  MRR@10 {m['mrr_at_10']:.4f}  MAP@10 {m['map_at_10']:.4f}  "
            f"S@1 {m['success_at_1']:.4f}  {chosen}{timed}  "
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


def validation_lines(judged: list[tuple[ModeRun, Report]]) -> tuple[list[str], int]:
    """What ends a run whose own validation is not ELIGIBLE, and the exit code the validator would give
    (docs/exit-codes.md): CHECK_FAILED when a check failed, else NOT_VERIFIED; ([], 0) when all are ELIGIBLE."""
    lines, code = [], 0
    for run, report in judged:
        if report.eligible:
            continue
        check = validator_command(shown(run.aggregate_path))
        if report.failed:
            named = "; ".join(c.line().removeprefix("FAIL").strip() for c in report.failed[:3])
            more = f" (and {len(report.failed) - 3} more)" if len(report.failed) > 3 else ""
            lines.append(f"the validator found {run.mode} {run.split} NOT ELIGIBLE for a claim: {named}{more}; the "
                         f"artifacts are written: fix that, then run again with --replace (`{check}` shows the whole "
                         "report)")
            code = CHECK_FAILED
        else:
            lines.append(f"the validator could not verify {run.mode} {run.split} "
                         f"({', '.join(c.name for c in report.not_verified)}), so it is not eligible for a claim; "
                         f"nothing failed: run `{check}` where it can be verified")
            code = code or NOT_VERIFIED
    return lines, code


@dataclass(frozen=True)
class SystemChoice:
    """The system under test as the next command must name it: its spec, and the directory its module is imported
    from where the interpreter's own path does not hold it (harness.systems.plugin.location)."""

    spec: str = BUILTIN
    directory: Path | None = None
    config: Path | None = None  # the built-in system's configuration overrides (--config FILE)

    def cli(self) -> list[str]:
        if self.spec == BUILTIN:
            return [] if self.config is None else ["--config", shown(self.config)]
        return ["--system", self.spec, *(["--system-path", shown(self.directory)] if self.directory else [])]

    def pytest(self) -> list[str]:
        """Each option with '=': pytest picks its rootdir from the command line before it knows a plugin's options,
        so a value written after a space would be taken for a test path."""
        if self.spec == BUILTIN:
            return [] if self.config is None else [f"--scifact-config={shown(self.config)}"]
        return [f"--scifact-system={self.spec}",
                *([f"--scifact-system-path={shown(self.directory)}"] if self.directory else [])]


def bundle_directory(output_dir: Path) -> Path:
    """The bundle an output directory's next step suggests, beside it and named after it, so that two systems'
    output directories never suggest the same one: results -> bundle, results-my_search-SYSTEM ->
    bundle-my_search-SYSTEM, any other name NAME -> NAME-bundle."""
    name = Path(os.path.abspath(output_dir)).name
    bundled = "bundle" + name.removeprefix("results") if name.startswith("results") else f"{name}-bundle"
    return Path(os.path.abspath(output_dir)).parent / bundled


def next_step(split: str, *, work_dir: Path, corpus: Path, store_dir: Path, output_dir: Path,
              system: SystemChoice = SystemChoice(), dataset: tuple[str, ...] = (),
              archive: tuple[str, ...] = ()) -> str:
    """The command that follows a finished split on the documented path. `dataset`: the options naming a dataset
    other than SciFact (--contract FILE), `archive`: --archive ZIP, both carried into the next command; the pytest
    suite's next step for another dataset is the command line's, which names it."""
    if split == "calibration":
        return "next, after committing: freeze the configuration:\n  " + harness_command(
            "freeze", "--corpus", shown(corpus), "--store-dir", shown(store_dir), "--output-dir", shown(output_dir),
            *system.cli(), *dataset)
    bundle = harness_command("bundle", "--output-dir", shown(output_dir), "--bundle-dir",
                             shown(bundle_directory(output_dir)), *archive)
    if split == "heldout" and not dataset and not archive:
        final = pytest_command("-m", "final", SPEND_HELDOUT, *pytest_options(
            work_dir=work_dir, store_dir=store_dir, output_dir=output_dir, system=system))
        bars = "" if system.spec == BUILTIN else (" (add --scifact-quality-bar=MODE=VALUE for each bar your system "
                                                  "must reach)")
        return (f"next: optionally the all-query receipts and quality bars{bars}:\n  {final}\nthen the bundle:\n  "
                f"{bundle}")
    return f"next: the bundle:\n  {bundle}"


def pytest_options(*, work_dir: Path, store_dir: Path, output_dir: Path,
                   system: SystemChoice = SystemChoice()) -> list[str]:
    """--scifact-work-dir, plus --scifact-store-dir, --scifact-output-dir and --scifact-system where they are not the
    defaults, each with '=' (SystemChoice.pytest says why)."""
    options = [f"--scifact-work-dir={shown(work_dir)}", *system.pytest()]
    if store_dir.resolve() != (work_dir / "store").resolve():
        options.append(f"--scifact-store-dir={shown(store_dir)}")
    if output_dir.resolve() != (work_dir / "results").resolve():
        options.append(f"--scifact-output-dir={shown(output_dir)}")
    return options


def after_freeze(*, corpus: Path, store_dir: Path, output_dir: Path, system: SystemChoice = SystemChoice(),
                 dataset: tuple[str, ...] = (), archive: tuple[str, ...] = ()) -> str:
    """The held-out step; the work dir is taken to be the fixture's directory, where the builder puts it. `dataset`
    and `archive` as for next_step."""
    if system.spec == RUN_FILE:  # the frozen run file's held-out queries, read from the copy the store keeps
        evaluate = harness_command("evaluate", "--corpus", shown(corpus), "--store-dir", shown(store_dir),
                                   "--output-dir", shown(output_dir), "--split", "heldout", *dataset, *archive)
        return ("next: the held-out evaluation of the frozen run file (once; the look is counted in this machine's "
                f"held-out record):\n  {evaluate}")
    pytest_form = pytest_command("-m", "heldout", SPEND_HELDOUT, *pytest_options(
        work_dir=corpus.parent, store_dir=store_dir, output_dir=output_dir, system=system))
    cli_form = harness_command("run", "--corpus", shown(corpus), "--store-dir", shown(store_dir), "--output-dir",
                               shown(output_dir), "--split", "heldout", *system.cli(), *dataset, *archive)
    if dataset or archive:
        return (f"next: the held-out run (once per mode and store; each look is counted in this machine's held-out "
                f"record):\n  {cli_form}")
    return (f"next: the held-out run (once per mode and store; each look is counted in this machine's held-out "
            f"record):\n  {pytest_form}\n  or: {cli_form}")
