"""Executable, source, dependencies and machine."""

import sys
from pathlib import Path

from ..core.context import Context
from ..core.digests import sha256_file
from ..core.locations import INTERPRETERS
from ..core.reading import is_file
from ..core.report import Report
from ..core.source_tree import harness_source_state
from ..rows.check_latency import check_latency
from .check_source import check_source

REQUIRED_DEPENDENCIES = ("numpy", "bm25s", "PyStemmer", "jsonschema")


def check_environment(ctx: Context, report: Report) -> None:
    receipt = ctx.receipt
    executable = receipt["executable"]
    # the receipt names the interpreter; where it lies is the run's locations.json's to say, else this one's
    placed = ctx.places.place(INTERPRETERS, executable["interpreter_sha256"])
    interpreter = placed or Path(sys.executable).resolve()
    found = sha256_file(interpreter) if is_file(interpreter) else None
    elsewhere = not ctx.places.entries.get(INTERPRETERS)  # no output directory of the run's machine places any
    if elsewhere and found != executable["interpreter_sha256"]:
        report.attest("executable", f"the run's interpreter {executable['interpreter']!r} (Python "
                      f"{executable['python_version']}, {executable['interpreter_sha256']}) is not on this machine, "
                      f"whose {interpreter} is {found}: the run's statement")
    else:
        report.equal("executable.interpreter", executable["interpreter_sha256"], found,
                     f"the recorded interpreter {executable['interpreter']!r} is {interpreter} ("
                     f"{'placed by ' + str(ctx.places.file) if placed else 'the one running this validator'}), of "
                     "the recorded sha256")
    harness = receipt["source"]["harness"]
    report.equal("source.harness", (harness["sha256"], harness["files"]),
                 harness_source_state(),
                 "the harness source digest and file count recomputed from the code beside this validator")
    check_source(ctx, report)
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
