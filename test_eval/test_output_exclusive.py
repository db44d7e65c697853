"""Writing artifacts is exclusive and kill-safe: of two runs into one output pair one writes and the other is refused;
a run killed mid-way leaves nothing that looks complete, and the next run says what it found and what to do."""

import fcntl
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.cli import ROOT, assert_clean_failure, child_env, run_tiny_cli
from harness.evaluation.receipts.locations import LOCATIONS_NAME, LOCK_NAME
from harness.fixture.corpus_fixture import CorpusFixture

ROWS, AGGREGATE = "tiny-test-fts_only-calibration.jsonl", "tiny-test-fts_only-calibration.aggregate.json"
KILLED_RUN = """
import os, signal, sys

from fixtures.archives import tiny_contract
from fixtures.cli import swap_contract
from harness.cli import app as cli

when, argv = sys.argv[1], sys.argv[2:]
real_replace = os.replace


def replace(source, destination):
    name = os.fspath(destination)
    if when == "before-the-renames" and name.endswith(".pending.json"):
        os.kill(os.getpid(), signal.SIGKILL)
    real_replace(source, destination)
    if when == "between-the-renames" and name.endswith(".jsonl"):
        os.kill(os.getpid(), signal.SIGKILL)


os.replace = replace
swap_contract(tiny_contract)
sys.exit(cli.main(argv))
"""


def _argv(corpus: CorpusFixture, tmp_path: Path, *extra: str) -> list[str]:
    return ["run", "--corpus", str(corpus.path), "--store-dir", str(tmp_path / "store"), "--output-dir",
            str(tmp_path / "out"), "--split", "calibration", "--mode", "fts_only", "--no-validate", *extra]


def _visible(directory: Path) -> list[str]:
    """The artifacts a run left (the validator's stored verdicts, in validation/, and locations.json aside)."""
    return sorted(p.name for p in directory.iterdir()
                  if not p.name.startswith(".") and p.name not in ("validation", LOCATIONS_NAME))


def _hidden(directory: Path) -> list[str]:
    """A run's hidden leftovers (the locations file's lock, which outlives every run, aside)."""
    return sorted(p.name for p in directory.iterdir() if p.name.startswith(".") and p.name != LOCK_NAME)


def _assert_complete_pair(out: Path) -> None:
    aggregate = json.loads((out / AGGREGATE).read_bytes())
    assert aggregate["per_query_sha256"] == "sha256:" + hashlib.sha256((out / ROWS).read_bytes()).hexdigest()


def _killed(when: str, argv: list[str]) -> None:
    child = subprocess.run([sys.executable, "-c", KILLED_RUN, when, *argv], cwd=ROOT, env=child_env(),
                           capture_output=True, text=True, timeout=120)
    assert child.returncode == -9, child.stderr


def test_two_runs_into_one_pair_one_writes_and_the_other_is_refused(tiny_corpus: CorpusFixture,
                                                                     tmp_path: Path) -> None:
    """Before: both exited 0 and one run's artifacts silently replaced the other's."""
    argv = [sys.executable, "-m", "fixtures.tiny_cli", *_argv(tiny_corpus, tmp_path)]
    children = [subprocess.Popen(argv, cwd=ROOT, env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True) for _ in range(2)]
    outcomes = sorted((child.wait(timeout=120), child.communicate()[1]) for child in children)
    assert [code for code, _ in outcomes] == [0, 3], outcomes
    # the refused run may first have waited for the store's lock, and said so: those progress lines are not the failure
    refused = "\n".join(line for line in outcomes[1][1].splitlines()
                        if not line.startswith(("waiting for the store", "... got the lock")))
    assert_clean_failure(3, refused, 3)
    assert "another run is writing" in refused or "already exist" in refused
    assert _visible(tmp_path / "out") == [AGGREGATE, ROWS] and _hidden(tmp_path / "out") == []
    _assert_complete_pair(tmp_path / "out")


def test_a_run_finding_its_pair_locked_is_refused_before_it_starts(tiny_corpus: CorpusFixture, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    out.mkdir()
    with (out / ".tiny-test-fts_only-calibration.lock").open("ab") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        outcome = run_tiny_cli(_argv(tiny_corpus, tmp_path), capsys)
    assert_clean_failure(outcome.code, outcome.err, 3)
    assert f"another run is writing {ROWS} and {AGGREGATE} in {out} right now" in outcome.err
    assert _visible(out) == [] and not (tmp_path / "store" / "ledger.sqlite3").exists()  # no run was numbered


def test_a_run_killed_between_rows_and_aggregate_is_cleaned_up_by_the_next(tiny_corpus: CorpusFixture,
                                                                           tmp_path: Path,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Before: a rows file without its aggregate, and a rerun refused because the artifact 'already exists'."""
    _killed("between-the-renames", _argv(tiny_corpus, tmp_path))
    out = tmp_path / "out"
    assert _visible(out) == [ROWS] and ".tiny-test-fts_only-calibration.pending.json" in _hidden(out)
    orphan = (out / ROWS).read_bytes()
    outcome = run_tiny_cli(_argv(tiny_corpus, tmp_path), capsys)
    assert outcome.code == 0, outcome.err
    assert f"note: found {out / ROWS} without its aggregate: the rows of run tiny-test/fts_only/calibration/run-1" \
        in outcome.err
    [moved] = (out / "superseded").glob(f"*-interrupted/{ROWS}")
    assert moved.read_bytes() == orphan
    assert _visible(out) == sorted([AGGREGATE, ROWS, "superseded"]) and _hidden(out) == []
    _assert_complete_pair(out)


def test_a_run_killed_before_the_renames_leaves_only_hidden_files(tiny_corpus: CorpusFixture, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    _killed("before-the-renames", _argv(tiny_corpus, tmp_path))
    out = tmp_path / "out"
    assert _visible(out) == [] and _hidden(out)  # staged rows and aggregate, nothing that looks complete
    outcome = run_tiny_cli(_argv(tiny_corpus, tmp_path), capsys)
    assert outcome.code == 0, outcome.err
    assert _visible(out) == [AGGREGATE, ROWS] and _hidden(out) == []
    _assert_complete_pair(out)


def test_an_orphan_nothing_explains_is_refused_by_name_until_replaced(tiny_corpus: CorpusFixture, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert run_tiny_cli(_argv(tiny_corpus, tmp_path), capsys).code == 0
    out = tmp_path / "out"
    (out / AGGREGATE).unlink()
    refused = run_tiny_cli(_argv(tiny_corpus, tmp_path), capsys)
    assert_clean_failure(refused.code, refused.err, 3)
    assert f"found {out / ROWS} without its aggregate {AGGREGATE}" in refused.err
    assert "Pass --replace to move it to" in refused.err and "or remove it" in refused.err
    assert _visible(out) == [ROWS]
    replaced = run_tiny_cli(_argv(tiny_corpus, tmp_path, "--replace"), capsys)
    assert replaced.code == 0, replaced.err
    assert len(list((out / "superseded").glob(f"*/{ROWS}"))) == 1
    _assert_complete_pair(out)
