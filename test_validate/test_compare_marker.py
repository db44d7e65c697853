"""`pytest -m compare --scifact-compare-run …` as a user types it, on copies of the session's two evaluations: the
genuine runs pass, and a run that is there but tampered fails the test (never a skip that reads as "not yet")."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.evaluation.history.heldout_record import RECORD_VARIABLE

from .systems_compared import SystemsCompared

ROOT = Path(__file__).resolve().parent.parent


def _compare(builtin: Path, k1: Path, out: Path) -> tuple[int, str]:
    out.mkdir()
    env = {key: value for key, value in os.environ.items() if key != "PYTEST_ADDOPTS"}
    env[RECORD_VARIABLE] = str(builtin.parent / "heldout-looks.sqlite3")  # the record the two runs were made under
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-m", "compare", "-p", "no:cacheprovider", "-q", "-p", "no:xdist",
         str(ROOT / "harness" / "suite" / "test_compare.py"), "-k", "systems and heldout",
         f"--scifact-compare-run=builtin={builtin}", f"--scifact-compare-run=k1={k1}",
         f"--scifact-output-dir={out}"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)
    return result.returncode, result.stdout + result.stderr


@pytest.mark.real_model
def test_the_genuine_runs_compare_and_a_damaged_one_fails(systems_heldout: SystemsCompared, tmp_path: Path) -> None:
    copy = systems_heldout.fresh(tmp_path / "copies")
    code, output = _compare(copy.builtin.out, copy.k1.out, tmp_path / "genuine")
    assert (code, "1 passed" in output) == (0, True), output[-3000:]

    aggregate = copy.k1.out / "tiny-test-hybrid-heldout.aggregate.json"
    aggregate.write_bytes(aggregate.read_bytes()[:-40])  # cut short: the run is there, and its receipt unreadable
    code, output = _compare(copy.builtin.out, copy.k1.out, tmp_path / "cut")
    assert code == 1 and "1 failed" in output and "skipped" not in output and "During handling" not in output, \
        output[-3000:]
    assert "the heldout runs are there but cannot be compared" in output and aggregate.name in output, output[-3000:]
