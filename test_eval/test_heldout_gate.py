"""Held-out is never spent by accident: the tests that look at the held-out split (heldout, final, parity,
documented_path) run only with --scifact-spend-heldout, whatever -m says. Each case is pytest on this repository, in a
subprocess, as a user would type it."""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPENDING = "heldout or final or parity or documented_path"


def _pytest(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def _collected(result: subprocess.CompletedProcess[str]) -> set[str]:
    return {line for line in result.stdout.splitlines() if "::" in line and not line.startswith(" ")}


def test_a_marker_expression_never_collects_the_held_out_tests() -> None:
    """`-m "not benchmark"` replaces pytest.ini's deselection; the held-out tests stay held back all the same,
    and one line says how many and which option runs them."""
    spending = _collected(_pytest("-p", "no:xdist", "--collect-only", "-q", "-m", SPENDING, "--scifact-spend-heldout"))
    assert any("test_scifact.py::test_split[" in item and "heldout" in item for item in spending), spending
    assert any("test_final_and_quality_bars" in item for item in spending)
    assert any("test_mteb_parity" in item for item in spending)
    assert any("test_documented_path.py::test_the_documented_path_runs_verbatim" in item for item in spending)
    result = _pytest("-p", "no:xdist", "--collect-only", "-q", "-m", "not benchmark")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    collected = _collected(result)
    assert any("test_scifact.py::test_split[" in item and "calibration" in item for item in collected)
    assert not collected & spending, sorted(collected & spending)
    held = f"{len(spending)} tests that look at the held-out split (heldout, final, parity, documented_path) held " \
           "back: pass --scifact-spend-heldout to run them"
    assert held in result.stdout, result.stdout[-2000:]


def test_selecting_only_held_out_tests_without_the_option_is_a_usage_error() -> None:
    result = _pytest("-p", "no:xdist", "-m", "heldout")
    assert result.returncode == 4, result.stdout[-2000:] + result.stderr[-2000:]
    assert re.search(r"ERROR: 3 tests that look at the held-out split .* held back: pass --scifact-spend-heldout to "
                     r"run them", result.stderr), result.stderr
    assert "passed" not in result.stdout and "no tests ran" not in result.stdout


def test_under_xdist_too_the_usage_error_is_named_not_exit_5() -> None:
    result = _pytest("-n", "2", "-m", "final", "harness/suite/test_scifact.py")
    assert result.returncode == 4, result.stdout[-2000:] + result.stderr[-2000:]
    assert "pass --scifact-spend-heldout to run it" in result.stderr, result.stderr
