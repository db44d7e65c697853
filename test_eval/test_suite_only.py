"""`pytest -m calibration` in this repository collects only the suite; an expression reaching beyond the suite's
markers, or a folder named on the command line, collects as always."""

import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.suite_only import only_suite_markers

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(("expression", "kept"), [("calibration", True), ("heldout or final", True),
                                                   ("parity", True), ("real_data or calibration", False),
                                                   ("not calibration", False), ("", False), ("compare", False)])
def test_which_expressions_keep_to_the_suite(expression: str, kept: bool) -> None:
    assert only_suite_markers(expression) is kept


def _collected(*argv: str) -> str:
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist", *argv], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)
    return done.stdout.strip().splitlines()[-1]


def test_a_calibration_session_collects_only_the_suite() -> None:
    line = _collected("-m", "calibration")
    assert line.startswith("3/") and int(line.split("/")[1].split()[0]) < 50, line
    everything = _collected("-m", "real_data or calibration")
    assert int(everything.split("/")[1].split()[0]) > 1000, everything


def _imports_hypothesis(*argv: str) -> bool:
    probe = ("import sys, pytest; pytest.main(['--collect-only', '-q', '-p', 'no:xdist', *sys.argv[1:]]); "
             "print('hypothesis imported:', 'hypothesis' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe, *argv], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          check=False)
    return done.stdout.strip().splitlines()[-1] == "hypothesis imported: True"


def test_a_suite_session_sets_hypothesis_aside() -> None:
    """Its end-of-session summary would import Hypothesis whole; the repository's own tests still have it."""
    assert not _imports_hypothesis("-m", "calibration", "harness/suite")
    assert _imports_hypothesis("-m", "real_data or calibration")
