"""The session's comparison between systems (systems_runs.py: builtin and k1, k1's freeze declaring a hypothesis
against builtin's), the validator's reports on its inputs, and per-test copies to forge."""

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.evaluation.history.heldout_record import RECORD_VARIABLE
from harness.validator.core.report import Report
from harness.validator.pipeline import validate

from .support import CleanRun, RunCopy, artifact_in, sha256_file
from .systems_comparison_builder import RunSpec, build, write
from .systems_runs import SystemsRuns, make_systems_runs

CALIBRATION_ARMS = (("builtin", "fts_only"), ("k1", "hybrid"))  # the calibration comparison: one chosen mode each


@dataclass(frozen=True)
class SystemsCopy:
    """Private copies of both output directories (the stores stay shared), with the comparison in k1's."""

    builtin: RunCopy
    k1: RunCopy
    path: Path

    def run(self, name: str) -> RunCopy:
        copy: RunCopy = getattr(self, name)
        return copy

    def specs(self, split: str = "heldout") -> list[RunSpec]:
        if split == "calibration":
            return [RunSpec(name, self.run(name).out, mode) for name, mode in CALIBRATION_ARMS]
        return [RunSpec("builtin", self.builtin.out), RunSpec("k1", self.k1.out)]

    def rebuild(self, specs: list[RunSpec] | None = None, split: str = "heldout", **options: Any) -> Path:
        """The comparison built again from the copies as they are now (a careful forger's reseal)."""
        return write(build(specs or self.specs(split), split, self.k1.out, **options), self.k1.out)


@dataclass(frozen=True)
class SystemsCompared:
    clean: CleanRun
    runs: SystemsRuns
    known: dict[str, Report]  # aggregate sha256 -> the validator's report against its run's freeze record

    def fresh(self, tmp_path: Path, split: str = "heldout") -> SystemsCopy:
        """Copies of both runs and their comparison on `split` (receipts still name the session's freeze paths; the
        validator is given each copy's own)."""
        copies = {}
        for name in ("builtin", "k1"):
            out = tmp_path / name
            shutil.copytree(getattr(self.runs, name), out)
            (tmp_path / f"scratch-{name}").mkdir()
            copies[name] = RunCopy(self.clean, out, tmp_path / f"scratch-{name}")
        copy = SystemsCopy(copies["builtin"], copies["k1"], tmp_path)
        return SystemsCopy(copy.builtin, copy.k1, copy.rebuild(split=split))


def systems_compared(clean: CleanRun, root: Path) -> SystemsCompared:
    """Under a held-out record of its own: the session's other held-out looks at the tiny dataset, made before the
    hypothesis was declared, would (rightly) make it exploratory."""
    with own_record(root / "heldout-looks.sqlite3"):
        return _compared(clean, root)


@contextmanager
def own_record(path: Path) -> Iterator[None]:
    before = os.environ.get(RECORD_VARIABLE)
    os.environ[RECORD_VARIABLE] = str(path)
    try:
        yield
    finally:
        if before is None:
            del os.environ[RECORD_VARIABLE]
        else:
            os.environ[RECORD_VARIABLE] = before


def _compared(clean: CleanRun, root: Path) -> SystemsCompared:
    runs = make_systems_runs(clean.fixture_path, root)
    arms = [(getattr(runs, name), mode, "heldout") for name in ("builtin", "k1")
            for mode in ("fts_only", "vector_only", "hybrid")]
    arms += [(getattr(runs, name), mode, "calibration") for name, mode in CALIBRATION_ARMS]
    known = {}
    for out, mode, split in arms:
        aggregate = artifact_in(out, f"-{mode}-{split}.aggregate.json")
        known[sha256_file(aggregate)] = validate(aggregate, freeze=out / "freeze.json")
    assert all(report.eligible for report in known.values()), [r.verdict() for r in known.values()]
    return SystemsCompared(clean, runs, known)
