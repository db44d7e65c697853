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
