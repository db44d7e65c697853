"""On SciFact: what `new-system` writes runs unedited. In a repository of its own (its own git work tree, holding the
two files and the lines the command printed to add), the user's own tests pass and the suite's calibration of the
system is ELIGIBLE by the independent validator's verdict (only the harness clone's own uncommitted changes, when
there are any, make it NOT ELIGIBLE, and then for source.clean alone); docs/systems.md's example of the suite's
fixtures passes there too."""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from harness.evaluation.receipts.provenance import git_state
from harness.fixture.build import BuildReport

ROOT = Path(__file__).resolve().parents[1]


def _indented_block(out: str, after: str) -> str:
    """The indented lines the output prints after the line ending in `after`, unindented."""
    lines = out.split(after + "\n", 1)[1].splitlines()
    block = []
    for line in lines:
        if line and not line.startswith("    "):
            break
        block.append(line[4:])
    return "\n".join(block).strip("\n") + "\n"


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key not in ("SCIFACT_ARCHIVE", "SCIFACT_WORK_DIR")}
    env["PYTHONPATH"] = str(ROOT)  # this clone's harness, whatever the interpreter's installed copy is
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=1800, check=False)


def _git(repository: Path, *argv: str) -> None:
    subprocess.run(["git", "-C", str(repository), "-c", "user.name=someone", "-c", "user.email=someone@localhost",
                    *argv], check=True, capture_output=True, timeout=60)


@pytest.mark.real_data
def test_a_new_system_passes_its_own_tests_and_calibrates_eligible(scifact_archive: Path, scifact_build: BuildReport,
                                                                   work_dir: Path, tmp_path: Path) -> None:
    repository = tmp_path / "my-search"
    written = _run([sys.executable, "-m", "harness", "new-system", "my_search", "--directory", str(repository)],
                   tmp_path)
    assert written.returncode == 0, written.stderr
    (repository / "pyproject.toml").write_text(_indented_block(written.stdout, "holding at least"), encoding="utf-8")
    (repository / ".gitignore").write_text(_indented_block(written.stdout, "add to .gitignore"), encoding="utf-8")
    _git(repository, "init", "-q")
    _git(repository, "add", "-A")
    _git(repository, "commit", "-qm", "a system of its own")
    commands = [line.strip() for line in written.stdout.splitlines() if " -m pytest " in line]
    assert len(commands) == 2, written.stdout
    places = [f"--scifact-work-dir={work_dir}", f"--scifact-store-dir={tmp_path / 'store'}",
              f"--scifact-output-dir={tmp_path / 'results'}", "-p", "no:xdist", "-p", "no:cacheprovider"]

    own = _run([*shlex.split(commands[0]), *places], repository)
    assert own.returncode == 0 and "3 passed" in own.stdout, own.stdout + own.stderr

    calibration = _run([*shlex.split(commands[1]), *places], repository)
    assert calibration.returncode == 0, calibration.stdout + calibration.stderr
    [line] = [line for line in calibration.stdout.splitlines() if line.startswith("vector_only  calibration")]
    verdict = re.search(r"failures 0  (.*?)  -> ", line)
    assert verdict is not None, line
    clean = git_state(ROOT).get("dirty") is False
    assert verdict.group(1) == ("ELIGIBLE" if clean else "NOT ELIGIBLE (failed: source.clean)"), line
    assert "1 passed, 2 skipped" in calibration.stdout  # fts_only and hybrid: the skeleton offers vector_only
    assert "freeze" in calibration.stdout.split("SciFact results")[1] and "--system my_search:SYSTEM" in \
        calibration.stdout
    status = subprocess.run(["git", "-C", str(repository), "status", "--porcelain"], capture_output=True, text=True,
                            check=True, timeout=60)
    assert status.stdout == "", status.stdout  # what the suite wrote is ignored: the freeze would take this tree

    page = (ROOT / "docs" / "systems.md").read_text(encoding="utf-8")
    [example] = re.findall(r"<!-- suite-fixtures-example -->\n```python\n(.*?)```", page, flags=re.S)
    (repository / "test_documented.py").write_text(example, encoding="utf-8")
    documented = _run([*shlex.split(commands[0])[:-1], "test_documented.py", *places], repository)
    assert documented.returncode == 0 and "2 passed" in documented.stdout, documented.stdout + documented.stderr
