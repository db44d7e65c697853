"""The harness installed from its wheel (not editable) into a venv inside a git repository of the user's own, on the
tiny collection, as the user runs it there: `pytest -p scifact_harness -m compare` collects the installed suite's
comparison tests, says why it compares nothing before anything is evaluated, then compares the built-in system's
modes and, with --scifact-compare-run, the built-in system against a system of the user's own, writing and
validating each file; and `freeze` names the installed distribution it binds and the system's own commit."""

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from fixtures.archives import TINY_CONTRACT_PATH, tiny_archive
from fixtures.installed_wheel import install_wheel

ROOT = Path(__file__).resolve().parents[1]
SUITE = ["-m", "pytest", "-p", "scifact_harness", "-p", "no:cacheprovider", "-p", "no:xdist", "-rs",
         "--scifact-contract=contract.json", "--scifact-archive=tiny.zip", "--scifact-work-dir=work",
         "--scifact-no-progress"]
BUILTIN, MINE = "work/results-tiny-test", "work/results-my_search-SYSTEM-tiny-test"
COMPARE_RUNS = [f"--scifact-compare-run=builtin={BUILTIN}", f"--scifact-compare-run=mine={MINE}"]


@dataclass(frozen=True)
class Repository:
    root: Path

    def run(self, *argv: str) -> subprocess.CompletedProcess[str]:
        """`.venv/bin/python ARGV` from the repository's root."""
        env = {key: value for key, value in os.environ.items() if key not in ("PYTEST_ADDOPTS", "PYTHONPATH")}
        return subprocess.run([".venv/bin/python", *argv], cwd=self.root, env=env, capture_output=True, text=True,
                              timeout=900, check=False)


def _git(root: Path, *argv: str) -> str:
    return subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@localhost", *argv],
                          check=True, capture_output=True, text=True, timeout=60).stdout.strip()


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Repository:
    """The user's repository: the wheel in .venv, a system of its own (my_search.py), the tiny collection's
    contract and zip, committed with work/ and .venv/ ignored."""
    venv = install_wheel(tmp_path_factory.mktemp("installed-suite"))
    root = venv.parent
    shutil.copy(ROOT / "examples" / "numpy_dense.py", root / "my_search.py")
    shutil.copy(TINY_CONTRACT_PATH, root / "contract.json")
    tiny_archive(root / "tiny.zip")
    (root / "pyproject.toml").write_text('[project]\nname = "mine"\nversion = "0.1.0"\n', encoding="utf-8")
    (root / ".gitignore").write_text(".venv/\nwork/\n__pycache__/\n", encoding="utf-8")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "a system of its own")
    return Repository(root)


def test_before_any_evaluation_it_says_why_nothing_was_compared(repository: Repository) -> None:
    done = repository.run(*SUITE, "-m", "compare")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "6 skipped" in done.stdout and "/site-packages/harness/suite/test_compare.py" in done.stdout, done.stdout
    assert f"no calibration aggregate in {repository.root / BUILTIN} yet: evaluate the calibration split first" in \
        done.stdout, done.stdout
    assert "give --scifact-compare-run=NAME=DIR twice or more" in done.stdout, done.stdout


@pytest.mark.real_model
def test_the_installed_suite_compares_modes_and_systems_and_the_freeze_names_the_distribution(
        repository: Repository) -> None:
    for system in ([], ["--scifact-system=my_search:SYSTEM"]):  # the built-in system's fts_only: top_k is beyond tiny
        done = repository.run(*SUITE, "-m", "calibration", "-k", "vector_only or hybrid", *system)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    done = repository.run(*SUITE, "-m", "compare", *COMPARE_RUNS)
    assert done.returncode == 0 and "2 passed" in done.stdout, done.stdout[-4000:] + done.stderr[-2000:]
    comparison = f"{BUILTIN}/tiny-test-comparison-calibration.json"
    systems = f"{BUILTIN}/tiny-test-systems-calibration.json"
    for path in (comparison, systems):
        document = json.loads((repository.root / path).read_bytes())
        assert set(document["inputs_validation"]["verdicts"].values()) == {"ELIGIBLE"}, document["inputs_validation"]
    summary = done.stdout.split("tiny-test results")[1]
    assert f"comparison {comparison}: 2 queries, inputs ELIGIBLE under the validator" in summary, summary
    assert f"check it independently: .venv/bin/python -m harness.validator --comparison {comparison}" in summary
    assert f"comparison between systems {systems}: calibration" in summary, summary
    assert "runs: builtin = builtin 2 (vector_only, hybrid); mine = numpy-dense 1.0.0 (vector_only)" in summary, summary

    frozen = repository.run("-m", "harness", "freeze", "--corpus", "work/tiny-test-corpus.json", "--contract",
                            "contract.json", "--store-dir", "work/store-my_search-SYSTEM-tiny-test", "--output-dir",
                            MINE, "--system", "my_search:SYSTEM")
    assert frozen.returncode == 0, frozen.stderr
    record = json.loads((repository.root / MINE / "freeze.json").read_bytes())
    installed = record["source"]["distribution"]
    assert frozen.stdout.splitlines()[0] == (
        f"frozen: {MINE}/freeze.json ({record['freeze_sha256']}); modes vector_only; source scifact-harness "
        f"{installed['version']}, installed (files {installed['files_sha256']}); system numpy-dense source: git commit "
        f"{_git(repository.root, 'rev-parse', 'HEAD')} (clean work tree required); run ledger position 3; chosen "
        "from 1 configuration tried on calibration (0 sweep evaluations, 1 calibration run)")
