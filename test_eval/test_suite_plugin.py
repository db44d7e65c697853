"""The suite as a pytest plugin, used from a directory that is not this repository (no pytest.ini, no conftest):
`pytest -p scifact_harness -m calibration --scifact-system ...` brings in the installed suite's tests, its options
take their value after a space or an '=', and the old unprefixed names are unknown. The real run from another
repository (its own plugin system, the real data) is a CI step; finding the system is test_system_location.py's."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.suite.plugin import SUITE

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "numpy_dense.py"


def _pytest(directory: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    (directory / "pyproject.toml").write_text('[project]\nname = "elsewhere"\nversion = "0"\n', encoding="utf-8")
    shutil.copy(EXAMPLE, directory / "my_search.py")
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "scifact_harness", *argv],
                          cwd=directory, capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.parametrize("form", ["space", "equals"])
def test_another_directory_collects_the_installed_suite_by_marker(tmp_path: Path, form: str) -> None:
    work = tmp_path / "some work dir"
    options = (["--scifact-work-dir", str(work), "--scifact-system", "my_search:SYSTEM"] if form == "space" else
               [f"--scifact-work-dir={work}", "--scifact-system=my_search:SYSTEM"])
    done = _pytest(tmp_path, "--collect-only", "-q", "-m", "calibration", *options)
    assert done.returncode == 0, done.stdout + done.stderr
    collected = [line for line in done.stdout.splitlines() if "::" in line]
    assert [line.split("::")[1] for line in collected] == [f"test_split[{mode}-calibration]" for mode in
                                                           ("fts_only", "vector_only", "hybrid")]
    assert all(line.split("::")[0].endswith("test_scifact.py") for line in collected)
    assert (SUITE / "test_scifact.py").is_file()


def test_without_a_suite_marker_the_suite_stays_out(tmp_path: Path) -> None:
    (tmp_path / "test_own.py").write_text("def test_own():\n    pass\n", encoding="utf-8")
    done = _pytest(tmp_path, "--collect-only", "-q")
    assert done.returncode == 0 and [line for line in done.stdout.splitlines() if "::" in line] == [
        "test_own.py::test_own"], done.stdout


def test_the_old_unprefixed_options_are_unknown(tmp_path: Path) -> None:
    done = _pytest(tmp_path, "--collect-only", "-q", "-m", "calibration", "--work-dir=x")
    assert done.returncode == 4 and "unrecognized arguments: --work-dir=x" in done.stderr, done.stderr


def test_every_option_is_prefixed_and_explained(tmp_path: Path) -> None:
    done = _pytest(tmp_path, "--help")
    section = done.stdout.split("SciFact harness")[1].split("\n\n")[0]
    names = [line.split()[0].split("=")[0] for line in section.splitlines() if line.startswith("  --")]
    assert names and all(name.startswith("--scifact-") for name in names), names
    assert "--scifact-system" in names and "--scifact-spend-heldout" in names
