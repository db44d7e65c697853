"""A system of one's own beside the user's pyproject.toml, found as typed: by `python -m harness` and the console
script from the current directory, by `pytest` and `python -m pytest` from the rootdir, or refused in one line that
names the option and the fix before any work; every next command printed names where the module lies."""

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fixtures.cli import run_tiny_cli
from harness.cli.summary import SystemChoice, after_freeze, next_step
from harness.fixture.corpus_fixture import CorpusFixture
from harness.systems.plugin.loading import SystemSpecError
from harness.systems.plugin.location import locate

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "numpy_dense.py"
PYTEST_SCRIPT = Path(sys.executable).parent / "pytest"


def _repository(root: Path) -> Path:
    """A user's repository: a system module and a pyproject.toml, nothing else."""
    root.mkdir(parents=True, exist_ok=True)
    shutil.copy(EXAMPLE, root / "my_search.py")
    (root / "pyproject.toml").write_text('[project]\nname = "my-search"\nversion = "0.1.0"\n', encoding="utf-8")
    return root


def test_a_module_beside_the_command_is_found_there(tmp_path: Path) -> None:
    repository = _repository(tmp_path / "repo")
    assert locate("my_search:SYSTEM", [repository], "--system", "--system-path DIR") == repository.resolve()


def test_a_module_on_the_interpreters_path_is_named_where_it_lies(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """PYTHONPATH, or the current directory under `python -m`: a next command typed without them must name it."""
    repository = _repository(tmp_path / "repo")
    monkeypatch.syspath_prepend(str(repository))
    assert locate("my_search:SYSTEM", [], "--system", "--system-path DIR") == repository.resolve()


@pytest.mark.parametrize("spec", ["builtin", "milvus", "json:loads"])
def test_a_registered_or_installed_system_needs_no_directory(spec: str) -> None:
    assert locate(spec, [], "--system", "--system-path DIR") is None


def test_a_module_found_nowhere_is_refused_with_the_fix(tmp_path: Path) -> None:
    with pytest.raises(SystemSpecError) as refused:
        locate("my_searhc:SYSTEM", [tmp_path], "--scifact-system", "--scifact-system-path=DIR")
    message = str(refused.value)
    assert message.startswith("--scifact-system my_searhc:SYSTEM: no module 'my_searhc'")
    assert str(tmp_path) in message and "--scifact-system-path=DIR" in message


def test_next_commands_name_the_systems_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    choice = SystemChoice("my_search:SYSTEM", tmp_path / "repo")
    paths: dict[str, Any] = {"corpus": tmp_path / "c.json", "store_dir": tmp_path / "s", "output_dir": tmp_path / "o"}
    frozen = next_step("calibration", work_dir=tmp_path, system=choice, **paths)
    assert "--system my_search:SYSTEM --system-path repo" in frozen
    held_out = after_freeze(system=choice, **paths)
    assert "--scifact-system=my_search:SYSTEM --scifact-system-path=repo" in held_out
    assert "--system my_search:SYSTEM --system-path repo" in held_out
    assert " --scifact-work-dir " not in held_out, "a pytest option's value after a space misleads pytest's rootdir"


def test_the_cli_finds_the_system_in_the_current_directory(tiny_corpus: CorpusFixture, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    repository = _repository(tmp_path / "repo")
    monkeypatch.chdir(repository)
    outcome = run_tiny_cli(["run", "--corpus", str(tiny_corpus.path), "--store-dir", "store", "--output-dir", "out",
                            "--split", "calibration", "--system", "my_search:SYSTEM", "--no-validate"], capsys)
    assert outcome.code == 0, outcome.err
    assert "--system my_search:SYSTEM --system-path ." in outcome.out
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    refused = run_tiny_cli(["run", "--corpus", str(tiny_corpus.path), "--store-dir", "store", "--output-dir", "out",
                            "--split", "calibration", "--system", "my_search:SYSTEM"], capsys)
    assert refused.code == 2 and "--system-path DIR" in refused.err and not (elsewhere / "store").exists()
    found = run_tiny_cli(["run", "--corpus", str(tiny_corpus.path), "--store-dir", "store", "--output-dir", "out",
                          "--split", "calibration", "--system", "my_search:SYSTEM", "--system-path", str(repository),
                          "--no-validate"], capsys)
    assert found.code == 0, found.err
    assert f"--system-path {repository}" in found.out


def _pytest(how: str, directory: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    launcher = [str(PYTEST_SCRIPT)] if how == "script" else [sys.executable, "-m", "pytest"]
    return subprocess.run([*launcher, "-p", "no:cacheprovider", "-p", "scifact_harness", *argv], cwd=directory,
                          capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.parametrize("how", ["script", "module"])
def test_pytest_finds_the_system_from_the_rootdir(tmp_path: Path, how: str) -> None:
    """The `pytest` script does not put the current directory on the module path; `python -m pytest` does."""
    repository = _repository(tmp_path / "repo")
    done = _pytest(how, repository, "--collect-only", "-m", "calibration", "--scifact-system",
                   "my_search:SYSTEM", f"--scifact-work-dir={tmp_path / 'work'}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert len([line for line in done.stdout.splitlines() if "test_split[" in line]) == 3, done.stdout
    header = f"scifact-harness: system under test my_search:SYSTEM (numpy-dense 1.0.0, modes vector_only); module " \
             f"from {repository.resolve()}"
    assert header in done.stdout, "loaded in a worker before any work, from the rootdir\n" + done.stdout


@pytest.mark.parametrize(("spec", "named"), [
    ("my_searhc:SYSTEM", "no module 'my_searhc'"),
    ("my_search:NOPE", "module 'my_search' has no attribute 'NOPE'"),
])
def test_a_system_pytest_cannot_load_ends_the_session_before_any_work(tmp_path: Path, spec: str, named: str) -> None:
    repository = _repository(tmp_path / "repo")
    work = tmp_path / "work"
    done = _pytest("script", repository, "-m", "calibration", f"--scifact-system={spec}", f"--scifact-work-dir={work}")
    assert done.returncode == 4, done.stdout + done.stderr
    assert (done.stdout + done.stderr).count(named) == 1, done.stdout + done.stderr
    assert f"--scifact-system {spec}" in done.stderr and "Traceback" not in done.stderr
    assert not work.exists(), "nothing is built for a session that cannot load its system"


def test_a_value_after_a_space_that_moves_pytests_rootdir_is_refused(tmp_path: Path) -> None:
    """pytest reads the command line for test paths before it knows a plugin's options: an existing directory
    written after a space becomes its rootdir, and the user's own configuration is not read."""
    repository = _repository(tmp_path / "repo")
    work = tmp_path / "work"
    work.mkdir()
    done = _pytest("script", repository, "--collect-only", "-q", "-m", "calibration", "--scifact-work-dir", str(work))
    assert done.returncode == 4, done.stdout + done.stderr
    assert f"write --scifact-work-dir={work}, with '='" in done.stderr
    inside = repository / "work-dir"
    inside.mkdir()
    kept = _pytest("script", repository, "--collect-only", "-q", "-m", "calibration", "--scifact-work-dir", "work-dir")
    assert kept.returncode == 0, "a value leaving the rootdir where it is needs no '='\n" + kept.stdout + kept.stderr
