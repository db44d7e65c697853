"""Executable, source, dependencies and machine."""

import subprocess
from pathlib import Path

from ..core.context import Context
from ..core.digests import sha256_file
from ..core.reading import is_file
from ..core.report import Report
from ..core.source_tree import HARNESS_DIR, harness_source_digest, harness_source_files
from ..rows.check_latency import check_latency

REQUIRED_DEPENDENCIES = ("numpy", "bm25s", "PyStemmer", "jsonschema")


def _git(*args: str) -> str | None:
    try:
        result = subprocess.run(["git", "-C", str(HARNESS_DIR.parent), *args], capture_output=True, text=True,
                                timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout.strip() if result.returncode == 0 else None


def check_environment(ctx: Context, report: Report) -> None:
    receipt = ctx.receipt
    executable = receipt["executable"]
    interpreter = Path(executable["interpreter"])
    found = sha256_file(interpreter) if is_file(interpreter) else None
    report.equal("executable.interpreter", executable["interpreter_sha256"], found,
                 f"the recorded interpreter {interpreter} resolves to the recorded sha256")
    harness = receipt["source"]["harness"]
    report.equal("source.harness", (harness["sha256"], harness["files"]),
                 (harness_source_digest(), len(harness_source_files())),
                 "the harness source digest and file count recomputed from the code beside this validator")
    git = receipt["source"]["git"]
    if not git.get("available"):
        report.unverified("source.git", f"the run recorded no git state: {git.get('reason')}")
    else:
        head = _git("rev-parse", "HEAD")
        if head is None:
            report.unverified("source.git", "git is not available here to resolve the recorded commit")
        else:
            report.equal("source.git", git["commit"], head, "the recorded commit is the checked-out HEAD")
        # a system's source in a git work tree of its own: its state at the freeze (the record the receipt binds)
        system_git = (((ctx.freeze or {}).get("source") or {}).get("system_tree") or {}).get("git") or {}
        dirty = [f"the clone: {git.get('changed_paths')}"] if git.get("dirty") is not False else []
        dirty += [f"the system's own work tree at the freeze (commit {system_git.get('commit')})"
                  ] if system_git.get("dirty") else []
        report.expect("source.clean", not dirty, "the run started from a clean work tree, and a system's source in a "
                      "work tree of its own was clean at the freeze (a dirty tree is recorded and not eligible)",
                      "clean", dirty)
    dependencies = receipt["dependencies"]
    missing = [name for name in REQUIRED_DEPENDENCIES if not dependencies.get(name)]
    report.expect("dependencies", not missing, "dependency versions are recorded", [], missing)
    machine = receipt["machine"]
    recorded = bool(machine.get("cpu_model") and machine.get("logical_cores") and machine.get("os"))
    report.expect("machine.identity", recorded, "machine identity (CPU, cores, OS) is recorded",
                  "cpu_model, logical_cores, os", machine)
    if recorded:
        report.attest("machine", f"{machine['cpu_model']}, {machine['logical_cores']} logical cores, {machine['os']}, "
                      f"BLAS {machine.get('blas')}, xdist workers {machine.get('xdist_workers')}")
    check_latency(receipt, report)
