"""Every mistake a user can make on the command line ends in one or two lines that name the thing, the problem and
the fix, with the exit code the README lists; never a traceback, and nothing written. --debug shows the traceback."""

import json
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from fixtures.archives import TINY_DATASET
from fixtures.cli import ROOT, Outcome, assert_clean_failure, child_env, run_tiny_cli
from fixtures.unwritable import unwritable
from harness.cli import commands
from harness.errors import ENVIRONMENT, INTERNAL, REFUSED, SYSTEM_FAILED, USAGE
from harness.evaluation.receipts.artifacts import aggregate_name
from harness.fixture.corpus_fixture import CorpusFixture
from harness.modes import SEARCHED as MODES
from harness.signals import INTERRUPTED_EXIT, TERMINATED_EXIT


@pytest.fixture
def corpus(tiny_corpus: CorpusFixture, tmp_path: Path) -> Path:
    """A private copy of the tiny fixture and its sidecar, free to edit."""
    directory = tmp_path / "fixture"
    directory.mkdir()
    shutil.copy2(tiny_corpus.path, directory / tiny_corpus.path.name)
    sidecar = json.loads(tiny_corpus.path.read_bytes())["vectors"]["file"]
    shutil.copy2(tiny_corpus.path.parent / sidecar, directory / sidecar)
    return directory / tiny_corpus.path.name


def _run(corpus: Path, tmp_path: Path, *extra: str, store: str = "store", out: str = "out", split: str = "calibration",
         mode: str = "fts_only") -> list[str]:
    return ["run", "--corpus", str(corpus), "--store-dir", str(tmp_path / store), "--output-dir", str(tmp_path / out),
            "--split", split, "--mode", mode, "--no-validate", *extra]


def _expect(outcome: Outcome, code: int, *fragments: str) -> None:
    assert_clean_failure(outcome.code, outcome.err, code)
    for fragment in fragments:
        assert fragment in outcome.err, outcome.err


def _file(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("a file\n")
    return path


@pytest.mark.parametrize(("option", "make"), [
    ("--out", lambda t: (t / "adir").mkdir() or ["--out", str(t / "adir")]),
    ("--out", lambda t: ["--out", str(_file(t / "afile") / "fixture.json")]),
    ("--work-dir", lambda t: ["--work-dir", str(_file(t / "afile"))]),
], ids=["out-is-a-directory", "out-under-a-file", "work-dir-is-a-file"])
def test_build_paths_of_the_wrong_kind(tmp_path: Path, option: str, make: Callable[[Path], list[str]],
                                       capsys: pytest.CaptureFixture[str]) -> None:
    argv = {"--out": str(tmp_path / "f.json"), "--work-dir": str(tmp_path / "work")}
    given = make(tmp_path)
    argv[given[0]] = given[1]
    outcome = run_tiny_cli(["build", *(x for pair in argv.items() for x in pair), "--archive",
                            str(_file(tmp_path / "a.zip"))], capsys)
    _expect(outcome, 2, option, given[1])
    assert not (tmp_path / "work").exists()


@pytest.mark.parametrize("option", ["--store-dir", "--output-dir"])
def test_run_directories_that_are_files(corpus: Path, tmp_path: Path, option: str,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    _file(tmp_path / "afile")
    argv = _run(corpus, tmp_path, store="afile" if option == "--store-dir" else "store",
                out="afile" if option == "--output-dir" else "out")
    _expect(run_tiny_cli(argv, capsys), 2, f"{option} {tmp_path / 'afile'} is a file, not a directory")


def test_an_unwritable_output_directory_writes_nothing(corpus: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "out").mkdir()
    with unwritable(tmp_path / "out"):
        outcome = run_tiny_cli(_run(corpus, tmp_path), capsys)
    _expect(outcome, 4, str(tmp_path / "out"))
    assert list((tmp_path / "out").iterdir()) == []


def test_a_non_utf8_path_is_a_usage_error(tmp_path: Path) -> None:
    """Before: a UnicodeEncodeError traceback when the path reached a receipt or the terminal."""
    out = str(tmp_path).encode() + b"/fixture-\xff.json"
    result = subprocess.run([sys.executable, "-m", "harness", "build", b"--out", out, "--work-dir", str(tmp_path)],
                            cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=60)
    assert_clean_failure(result.returncode, result.stderr, 2)
    assert "is not valid UTF-8" in result.stderr and "--out" in result.stderr


def test_a_fixture_with_edited_dimensions_is_named(corpus: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Before: a numpy reshape error."""
    data = json.loads(corpus.read_bytes())
    data["vectors"]["dimensions"] = data["embedding"]["dimensions"] = 383
    corpus.write_text(json.dumps(data, indent=1))
    _expect(run_tiny_cli(_run(corpus, tmp_path), capsys), 2, f"fixture {corpus} records", "rebuild it")


@pytest.mark.parametrize("content", [b"garbage{", b"[1, 2, 3]\n"], ids=["garbage", "a-json-list"])
def test_a_damaged_store_manifest_is_named(corpus: Path, tmp_path: Path, content: bytes,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert run_tiny_cli(_run(corpus, tmp_path), capsys).code == 0
    (tmp_path / "store" / "store.json").write_bytes(content)
    _expect(run_tiny_cli(_run(corpus, tmp_path, out="out2"), capsys), 2,
            f"store manifest {tmp_path / 'store' / 'store.json'}", "new --store-dir")
    assert not (tmp_path / "out2").exists()


def test_a_garbage_ledger_is_named_and_kept(corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_tiny_cli(_run(corpus, tmp_path), capsys).code == 0
    ledger = tmp_path / "store" / "ledger.sqlite3"
    for leftover in ledger.parent.glob("ledger.sqlite3-*"):
        leftover.unlink()
    ledger.write_bytes(b"this is not a database" * 100)
    _expect(run_tiny_cli(_run(corpus, tmp_path, out="out2"), capsys), 2, f"the run ledger {ledger}",
            "restore it from a copy")
    assert ledger.read_bytes() == b"this is not a database" * 100 and list((tmp_path / "out2").iterdir()) == []


def _frozen_output(corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    for mode in MODES:
        assert run_tiny_cli(_run(corpus, tmp_path, mode=mode), capsys).code == 0
    freeze = ["freeze", "--corpus", str(corpus), "--store-dir", str(tmp_path / "store"), "--output-dir",
              str(tmp_path / "out"), "--allow-dirty"]
    assert run_tiny_cli(freeze, capsys).code == 0
    return tmp_path / "out" / "freeze.json"


@pytest.mark.parametrize("content", [b"{not json", b"[]", b'{"schema": "scifact-freeze-v1"}'],
                         ids=["garbage", "a-json-list", "off-schema"])
def test_a_garbage_freeze_record_is_named(corpus: Path, tmp_path: Path, content: bytes,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    freeze = _frozen_output(corpus, tmp_path, capsys)
    freeze.write_bytes(content)
    _expect(run_tiny_cli(_run(corpus, tmp_path, split="heldout"), capsys), 2, f"freeze record {freeze}", "--replace")
    assert not (tmp_path / "out" / aggregate_name(TINY_DATASET, "fts_only", "heldout")).exists()
    with closing(sqlite3.connect(tmp_path / "store" / "ledger.sqlite3")) as connection:
        assert connection.execute("SELECT COUNT(*) FROM runs WHERE split = 'heldout'").fetchone()[0] == 0


def test_an_unwritable_bundle_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    for mode in MODES:
        for split in ("calibration", "heldout"):
            _file(out / aggregate_name(TINY_DATASET, mode, split))
    (tmp_path / "locked").mkdir()
    with unwritable(tmp_path / "locked"):
        outcome = run_tiny_cli(["bundle", "--output-dir", str(out), "--bundle-dir", str(tmp_path / "locked" / "b")],
                               capsys)
    _expect(outcome, 4, str(tmp_path / "locked"))
    assert list((tmp_path / "locked").iterdir()) == []


def test_a_bundle_of_another_dataset_than_named_is_refused_before_any_work(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    _file(out / aggregate_name(TINY_DATASET, "fts_only", "calibration"))
    outcome = run_tiny_cli(["bundle", "--output-dir", str(out), "--bundle-dir", str(tmp_path / "b"), "--dataset",
                            "nfcorpus"], capsys)
    _expect(outcome, 2, f"--dataset nfcorpus: {out} holds runs of {TINY_DATASET}; name the output directory of "
                        "nfcorpus's evaluation")
    empty = run_tiny_cli(["bundle", "--output-dir", str(tmp_path), "--bundle-dir", str(tmp_path / "c"), "--dataset",
                          "scifact"], capsys)
    _expect(empty, 2, f"--dataset scifact: {tmp_path} holds no run")
    assert not (tmp_path / "b").exists() and not (tmp_path / "c").exists()


def test_an_internal_fault_says_so_and_debug_shows_the_traceback(corpus: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(commands, "run_split", broken)
    plain = run_tiny_cli(_run(corpus, tmp_path), capsys)
    _expect(plain, 5, "internal error (ZeroDivisionError: a bug)", "--debug")
    debug = run_tiny_cli(["--debug", *_run(corpus, tmp_path)], capsys)
    assert debug.code == 5 and "Traceback (most recent call last)" in debug.err and "ZeroDivisionError" in debug.err
    after = run_tiny_cli([*_run(corpus, tmp_path), "--debug"], capsys)  # after the command, too
    assert after.code == 5 and "Traceback" in after.err


def test_debug_shows_the_traceback_of_an_ordinary_error_too(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    outcome = run_tiny_cli(["run", "--corpus", str(tmp_path / "none.json"), "--store-dir", str(tmp_path / "s"),
                            "--output-dir", str(tmp_path / "o"), "--split", "calibration", "--debug"], capsys)
    assert outcome.code == 2 and "Traceback" in outcome.err
    assert outcome.err.strip().splitlines()[-1].startswith(f"error: --corpus {tmp_path / 'none.json'} does not exist")


def test_an_unknown_option_is_a_two_line_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    outcome = run_tiny_cli(["run", "--colour", "blue"], capsys)
    assert outcome.code == 2 and len(outcome.err.strip().splitlines()) == 2
    assert outcome.err.startswith("error: python -m harness run: ") and "--help" in outcome.err


def test_the_readme_points_to_the_one_table_of_exit_codes() -> None:
    """The table itself, and both tools' codes against it, are test_exit_codes.py's."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    assert "[docs/exit-codes.md](docs/exit-codes.md)" in section
    assert all(str(code) in section for code in (0, USAGE, REFUSED, ENVIRONMENT, INTERNAL, SYSTEM_FAILED,
                                                 INTERRUPTED_EXIT, TERMINATED_EXIT))
