"""Without the `report` extra (matplotlib), every command but `report` and `bundle` works, and those two stop before
any work with the environment's exit code and the command that installs it, never an import error's traceback.
matplotlib is hidden from a fresh interpreter as if it were not installed (a None entry in sys.modules makes its
import fail)."""

import subprocess
import sys
from pathlib import Path

from harness.errors import ENVIRONMENT

HIDDEN = "import sys, runpy; sys.modules['matplotlib'] = None; sys.argv[0] = 'scifact-harness'; " \
         "runpy.run_module('harness', run_name='__main__')"


def _harness(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", HIDDEN, *argv], capture_output=True, text=True, timeout=300,
                          check=False, cwd=cwd)


def test_other_commands_work_and_report_and_bundle_name_the_install(tmp_path: Path) -> None:
    version = _harness("--version", cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("scifact-harness "), version.stderr
    output = tmp_path / "results"
    output.mkdir()
    for argv in (["report", "--output-dir", str(output), "--out", str(tmp_path / "report.html")],
                 ["bundle", "--output-dir", str(output), "--bundle-dir", str(tmp_path / "bundle")]):
        done = _harness(*argv, cwd=tmp_path)
        assert done.returncode == ENVIRONMENT, (argv, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr, done.stderr
        assert "matplotlib" in done.stderr and ".[report]" in done.stderr and "make setup" in done.stderr, done.stderr
        assert not (tmp_path / "bundle").exists()
