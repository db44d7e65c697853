"""The installed console scripts run the same commands as `python -m ...`, and `--version` names the distribution's
version and the digest of the harness source that receipts bind."""

import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from harness.source_digest import harness_digest

BIN = Path(sys.executable).parent


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(argv), capture_output=True, text=True, timeout=120, check=False)


def test_scifact_harness_version_is_the_distribution_and_the_source_digest() -> None:
    expected = f"scifact-harness {metadata.version('scifact-harness')} (harness source {harness_digest()['sha256']})"
    for argv in ([str(BIN / "scifact-harness"), "--version"], [sys.executable, "-m", "harness", "--version"]):
        done = _run(*argv)
        assert (done.returncode, done.stdout.strip(), done.stderr) == (0, expected, ""), argv


def test_the_console_script_names_itself_in_a_usage_error(tmp_path: Path) -> None:
    """By the path it was typed by, from a directory the path does not lie in (test_typed_forms.py: every form)."""
    done = subprocess.run([str(BIN / "scifact-harness"), "no-such-command"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, check=False, env={**os.environ, "PATH": os.defpath})
    assert done.returncode == 2 and not done.stdout
    assert re.match(rf"error: {re.escape(str(BIN / 'scifact-harness'))}: argument COMMAND: invalid choice: "
                    r"'no-such-command'", done.stderr), done.stderr
    assert done.stderr.rstrip().endswith(f"usage: {BIN / 'scifact-harness'} --help")


def test_help_says_what_each_tool_does_and_in_which_order(tmp_path: Path) -> None:
    """The top-level --help is for a user: what the tool does, its commands in the order of a publishable result, and
    the validator beside it, by the path this one was typed by; the validator's likewise."""
    env = {**os.environ, "PATH": os.defpath}
    harness = subprocess.run([str(BIN / "scifact-harness"), "--help"], cwd=tmp_path, env=env, capture_output=True,
                             text=True, timeout=120, check=False)
    assert harness.returncode == 0, harness.stderr
    order = ["  build ", "  run --split calibration ", "  freeze ", "  run --split heldout ", "  compare ", "  bundle "]
    assert [harness.stdout.index(step) for step in order] == sorted(harness.stdout.index(step) for step in order)
    assert "Measure how well a retrieval system" in harness.stdout and "parser" not in harness.stdout
    assert f"  {BIN / 'scifact-validate'} AGGREGATE ..." in harness.stdout, harness.stdout
    validator = subprocess.run([str(BIN / "scifact-validate"), "--help"], cwd=tmp_path, env=env, capture_output=True,
                               text=True, timeout=120, check=False)
    assert validator.returncode == 0, validator.stderr
    assert "The independent validator of scifact-harness's results" in validator.stdout
    assert f"e.g. {BIN / 'scifact-validate'} work-dir/results/" in validator.stdout, validator.stdout
