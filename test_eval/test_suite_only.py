"""`pytest -m calibration` in this repository collects only the suite; an expression reaching beyond the suite's
markers, or a folder named on the command line, collects as always."""

import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

from fixtures.suite_only import only_suite_markers

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(("expression", "kept"), [("calibration", True), ("heldout or final", True),
                                                   ("parity", True), ("real_data or calibration", False),
                                                   ("not calibration", False), ("", False), ("compare", False)])
def test_which_expressions_keep_to_the_suite(expression: str, kept: bool) -> None:
    assert only_suite_markers(expression) is kept


class Session(NamedTuple):
    collected: str  # the collection's last line: "N/M tests collected (...)"
    imported_hypothesis: bool


def _session(*argv: str) -> Session:
    """`pytest --collect-only -q -p no:xdist ARGV` in a process of its own, and whether it imported Hypothesis."""
    probe = ("import sys, pytest; pytest.main(['--collect-only', '-q', '-p', 'no:xdist', *sys.argv[1:]]); "
             "print('hypothesis imported:', 'hypothesis' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe, *argv], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          check=False)
    *collection, imported = done.stdout.strip().splitlines()
    return Session(collection[-1], imported == "hypothesis imported: True")


@pytest.fixture(scope="module")
def beyond_the_suite() -> Session:
    """A session whose expression reaches beyond the suite's markers, collected once for the module's tests."""
    return _session("-m", "real_data or calibration")


def test_a_calibration_session_collects_only_the_suite(beyond_the_suite: Session) -> None:
    line = _session("-m", "calibration").collected
    assert line.startswith("3/") and int(line.split("/")[1].split()[0]) < 50, line
    everything = beyond_the_suite.collected
    assert int(everything.split("/")[1].split()[0]) > 1000, everything


def test_a_suite_session_sets_hypothesis_aside(beyond_the_suite: Session) -> None:
    """Its end-of-session summary would import Hypothesis whole; the repository's own tests still have it."""
    assert not _session("-m", "calibration", "harness/suite").imported_hypothesis
    assert beyond_the_suite.imported_hypothesis
