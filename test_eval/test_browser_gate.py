"""A machine without a browser: the README's test command passes there (the browser test skips, naming why and the
option that makes it run), and `--browser=required` (CI) turns the missing browser into a failure."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.browser import CHROMIUM_NAMES

REPOSITORY = Path(__file__).resolve().parents[1]
NEEDS_BROWSER = "def test_needs_a_browser(chromium):\n    assert chromium.exists()\n"
CONFTEST = "from fixtures.browser_gate import chromium, pytest_addoption, pytest_configure\n"


def _session(tmp_path: Path, *args: str, browser_env: str | None = None) -> subprocess.CompletedProcess[str]:
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_page.py").write_text(NEEDS_BROWSER)
    bare_path = tmp_path / "bin"  # a PATH holding only this interpreter: no browser on it
    bare_path.mkdir(exist_ok=True)
    env = {key: value for key, value in os.environ.items() if key not in ("SCIFACT_BROWSER", "PYTEST_ADDOPTS")}
    env.update(PATH=str(bare_path), PYTHONPATH=str(REPOSITORY))
    if browser_env is not None:
        env["SCIFACT_BROWSER"] = browser_env
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rs", "-p", "no:xdist",
                           "-p", "no:scifact_harness", *args, str(tmp_path)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_without_a_browser_the_default_run_skips_and_names_the_option(tmp_path: Path) -> None:
    done = _session(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 skipped" in done.stdout
    assert "--browser=required" in done.stdout and "apt-get install chromium" in done.stdout
    assert all(name in done.stdout for name in CHROMIUM_NAMES)


@pytest.mark.parametrize("how", ["option", "environment"])
def test_a_required_browser_fails_without_one(tmp_path: Path, how: str) -> None:
    done = _session(tmp_path, "--browser=required") if how == "option" else _session(tmp_path, browser_env="required")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 error" in done.stdout and "apt-get install chromium" in done.stdout


def test_an_unknown_choice_is_refused(tmp_path: Path) -> None:
    done = _session(tmp_path, "--browser=maybe")
    assert done.returncode == 4 and "give required or optional" in done.stderr, done.stdout + done.stderr
