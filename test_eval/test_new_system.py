"""`scifact-harness new-system NAME`: a working system of the user's own and tests of their own, written all or
nothing and never over a file; what to add and run next, printed; a NAME that cannot be a module refused with the
fix. The skeleton is ruff-clean and mypy --strict clean as written, and on the tiny corpus a system the validator
replays; its calibration on the real data is test_new_system_calibration.py's."""

import importlib.util
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from fixtures.cli import as_module
from harness.cli.app import main
from harness.cli.scaffold.skeleton import Skeleton
from harness.corpus.contract import Contract
from harness.errors import REFUSED, USAGE
from harness.evaluation.run_split import Evaluation, run_split
from harness.fixture.corpus_fixture import CorpusFixture
from harness.validator.pipeline import validate

ROOT = Path(__file__).resolve().parents[1]
GIT = {"source.git", "source.clean"}  # a work tree with changes is recorded as such, and not eligible
RUFF_RULES = "E,F,W,I,B,UP,SIM,RUF"  # the project's own selection (pyproject.toml), stricter than ruff's default


def new_system(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with as_module():
        code = main(["new-system", *argv], prog="scifact-harness")
    out, err = capsys.readouterr()
    return code, out, err


def test_it_writes_a_system_and_its_tests_and_prints_what_to_add_and_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = new_system(capsys, "my_search")
    assert (code, err) == (0, "")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my_search.py", "test_my_search.py"]
    assert out.startswith("wrote my_search.py (SYSTEM: exact inner product") and "and test_my_search.py" in out
    assert '    [project]\n    name = "my-search"\n    version = "0.1.0"\n' in out
    assert '    [tool.pytest.ini_options]\n    addopts = ["-p", "scifact_harness"]\n' in out
    assert "add to .gitignore\n    work-dir/\n    __pycache__/\n    .pytest_cache/\n    .venv/\n" in out
    python = os.path.relpath(sys.executable) if Path(sys.executable).is_relative_to(tmp_path) else sys.executable
    assert (f"    {python} -m pytest -p scifact_harness --scifact-system=my_search:SYSTEM test_my_search.py\n"
            f"    {python} -m pytest -p scifact_harness -m calibration --scifact-system=my_search:SYSTEM\n") in out
    assert "cd " not in out


def test_elsewhere_it_says_where_to_run_and_reads_the_directory_s_configuration(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    repository = tmp_path / "repository"
    repository.mkdir()
    (repository / "pyproject.toml").write_text('[project]\nname = "mine"\nversion = "1"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out, _ = new_system(capsys, "ranker", "--directory", "repository")
    assert code == 0 and (repository / "ranker.py").is_file() and (repository / "test_ranker.py").is_file()
    assert "1. repository holds pyproject.toml, so pytest takes it as its rootdir" in out and "[project]" not in out
    assert f"    cd {repository}\n    {os.path.abspath(sys.executable)} -m pytest -p scifact_harness " in out
    code, out, _ = new_system(capsys, "other", "--directory", "new/place")
    assert code == 0 and (tmp_path / "new" / "place" / "other.py").is_file() and "[project]" in out


def test_files_that_exist_are_named_and_nothing_is_written(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "test_my_search.py").write_text("def test_mine() -> None: ...\n", encoding="utf-8")
    code, out, err = new_system(capsys, "my_search", "--directory", str(tmp_path))
    assert (code, out) == (REFUSED, "")
    assert err == (f"error: new-system: {tmp_path / 'test_my_search.py'} already exists; nothing was written: move "
                   "them away, or choose another NAME or --directory\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["test_my_search.py"]
    assert (tmp_path / "test_my_search.py").read_text(encoding="utf-8") == "def test_mine() -> None: ...\n"


@pytest.mark.parametrize(("name", "message"), [
    ("my-search", "'my-search' is not a Python module name: NAME becomes my-search.py, imported as "
                  "--scifact-system=my-search:SYSTEM, so use ASCII letters, digits and underscores, not starting with "
                  "a digit; choose another NAME, e.g. `new-system my_search`"),
    ("2fast", "e.g. `new-system system_2fast`"),
    ("système", "'système' is not a Python module name"),
    ("class", "'class' is a Python keyword, which no import can name; choose another NAME, e.g. `new-system "
              "system_class`"),
    ("test_ranker", "pytest collects test_ranker.py as a file of tests (test_*.py, *_test.py), not a system; choose "
                    "another NAME, e.g. `new-system my_test_ranker`"),
    ("ranker_test", "e.g. `new-system my_ranker_test`"),
    ("json", "a module 'json' exists already (the standard library), and json.py would hide it"),
    ("numpy", "a module 'numpy' exists already ("),
    ("x" * 101, "is 101 characters long, over 100"),
])
def test_a_name_that_cannot_be_the_system_s_module_is_refused_with_the_fix(
        name: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = new_system(capsys, name, "--directory", str(tmp_path))
    assert (code, out) == (USAGE, "") and err.startswith("error: new-system: ") and message in err, err
    assert list(tmp_path.iterdir()) == []


def test_the_command_line_writes_it_too(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "harness", "new-system", "my_search"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0 and done.stdout.startswith("wrote my_search.py"), done.stderr
    assert (tmp_path / "my_search.py").read_text(encoding="utf-8") == Skeleton("my_search").files()["my_search.py"]


@pytest.mark.parametrize(("module", "cls", "name"), [("my_search", "MySearch", "my-search"),
                                                     ("result", "ResultSystem", "result"), ("_1", "System1", "1"),
                                                     ("__", "System", "system")])
def test_the_class_and_the_system_s_name_come_from_the_module_s(module: str, cls: str, name: str) -> None:
    skeleton = Skeleton(module)
    assert (skeleton.class_name, skeleton.system_name) == (cls, name)
    source = skeleton.files()[f"{module}.py"]
    assert f"\nclass {cls}:\n" in source and f'    name = "{name}"\n' in source and f"SYSTEM = {cls}()\n" in source
    compile(source, f"{module}.py", "exec")
    compile(skeleton.files()[f"test_{module}.py"], f"test_{module}.py", "exec")


@pytest.mark.extra("lint")
def test_the_skeleton_is_ruff_clean_and_mypy_strict_clean_as_written(tmp_path: Path) -> None:
    """Checked where a user's repository holds it: ruff sees the harness as a third-party package there."""
    for name, text in Skeleton("my_search").files().items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    ruff = subprocess.run([sys.executable, "-m", "ruff", "check", "--isolated", "--select", RUFF_RULES,
                           "--line-length", "120", "--target-version", "py311", "."], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False)
    assert ruff.returncode == 0, ruff.stdout + ruff.stderr
    mypy = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--python-version", "3.11",
                           "my_search.py", "test_my_search.py"], cwd=tmp_path,
                          env={**os.environ, "MYPYPATH": str(ROOT)}, capture_output=True, text=True, timeout=600,
                          check=False)
    assert mypy.returncode == 0, mypy.stdout + mypy.stderr


def test_the_skeleton_is_a_system_the_validator_replays(tiny_corpus: CorpusFixture, tiny: Contract, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "source"
    source.mkdir()
    for name, text in Skeleton("my_search").files().items():
        (source / name).write_text(text, encoding="utf-8")
    monkeypatch.syspath_prepend(str(source))
    [run] = run_split(Evaluation(corpus=tiny_corpus.path, store_dir=tmp_path / "store", output_dir=tmp_path / "out",
                                 split="calibration", system="my_search:SYSTEM"), tiny)
    receipt = run.aggregate["receipt"]
    assert (run.mode, receipt["system"]["name"], set(receipt["store"]["parts"])) == (
        "vector_only", "my-search", {"vectors", "manifest"})
    assert run.aggregate["metrics"]["failures"] == 0
    report = validate(run.aggregate_path)
    problems = [c.line() for c in report.checks if c.status != "pass" and c.name not in GIT]
    assert problems == [], "\n".join(problems)
    assert {"replay.dense", "store.parts", "store.live", "system.source"} <= {
        c.name for c in report.checks if c.status == "pass"}


def test_the_skeleton_builds_once_and_refuses_a_directory_built_from_other_inputs(tiny_corpus: CorpusFixture,
                                                                                   tmp_path: Path) -> None:
    (tmp_path / "my_search.py").write_text(Skeleton("my_search").files()["my_search.py"], encoding="utf-8")
    spec = importlib.util.spec_from_file_location("my_search", tmp_path / "my_search.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    system, corpus, directory = module.SYSTEM, tiny_corpus.corpus, tmp_path / "store"
    directory.mkdir()
    assert system.build(corpus, directory) is True
    parts = {name: path.read_bytes() for name, path in system.parts().items()}
    assert system.build(corpus, directory) is False
    assert {name: path.read_bytes() for name, path in system.parts().items()} == parts
    with pytest.raises(ValueError, match=f"{directory} was built from another corpus fixture: build in a new "):
        system.build(replace(corpus, fixture_sha256="sha256:" + "0" * 64), directory)
    system.configuration = lambda: {"metric": "inner product", "dtype": "float32", "ties": "doc_id descending"}
    with pytest.raises(ValueError, match="was built from another configuration"):
        system.build(corpus, directory)
    ranked = module.SYSTEM.search("vector_only", "", tiny_corpus.query_vector("q1"), 3)
    assert [r.doc_id for r in ranked][:1] == ["d01"] and len(ranked) == 3
    with pytest.raises(ValueError, match="fts_only hands no query vector; this system offers vector_only"):
        module.SYSTEM.search("fts_only", "aspirin", None, 10)
