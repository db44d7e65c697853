"""The command line of comparisons between systems and of hypotheses: every malformed option named, with its fix
and the usage exit code, before anything is read or written."""

from pathlib import Path

import pytest

from fixtures.cli import assert_clean_failure, run_tiny_cli
from harness.fixture.corpus_fixture import CorpusFixture


@pytest.mark.parametrize(("extra", "named"), [
    (["--run", "solo=DIR"], "needs two --run or more"),
    (["--run", "a=X", "--run", "a=Y"], "a is given more than once"),
    (["--run", "a=X", "--run", "b=Y", "--baseline", "c"], "--baseline c: not one of the runs"),
    (["--run", "a:bm25=X", "--run", "b=Y"], "the mode 'bm25'"),
    (["--run", "no-directory", "--run", "b=Y"], "NAME=OUTPUT_DIR"),
])
def test_a_malformed_comparison_between_systems_is_named(extra: list[str], named: str, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    outcome = run_tiny_cli(["compare", "--split", "heldout", "--output-dir", str(tmp_path / "out"), *extra], capsys)
    assert_clean_failure(outcome.code, outcome.err, 2)
    assert named in outcome.err
    assert not (tmp_path / "out" / "scifact-systems-heldout.json").exists()


def test_a_run_that_is_not_a_directory_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outcome = run_tiny_cli(["compare", "--split", "calibration", "--output-dir", str(tmp_path / "out"),
                            "--run", f"a={tmp_path / 'nowhere'}", "--run", f"b={tmp_path}"], capsys)
    assert_clean_failure(outcome.code, outcome.err, 2)
    assert "--run a=" in outcome.err and "not a directory" in outcome.err


def test_a_mode_baseline_without_runs_is_a_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outcome = run_tiny_cli(["compare", "--split", "calibration", "--output-dir", str(tmp_path),
                            "--baseline", "builtin"], capsys)
    assert_clean_failure(outcome.code, outcome.err, 2)
    assert "--baseline builtin: one of fts_only, vector_only, hybrid" in outcome.err


@pytest.mark.parametrize(("extra", "named", "code"), [
    (["--hypothesis", "hybrid > fts_only"], "--hypothesis needs --hypothesis-baseline DIR", 2),
    (["--hypothesis-baseline", "DIR"], "--hypothesis-baseline without --hypothesis", 2),
    (["--hypothesis", "hybrid >> fts_only", "--hypothesis-baseline", "DIR"], '"A > B"', 2),
    (["--hypothesis", "hybrid > fts_only", "--hypothesis-baseline", "DIR", "--hypothesis-alpha", "0.9"],
     "above 0 and at most 0.5", 2),
    (["--hypothesis", "hybrid > fts_only", "--hypothesis-baseline", "NOWHERE"], "no freeze.json there", 3),
])
def test_a_malformed_hypothesis_is_named_before_freezing(extra: list[str], named: str, code: int,
                                                         tiny_corpus: CorpusFixture, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    out, store = tmp_path / "out", tmp_path / "store"
    assert run_tiny_cli(["run", "--corpus", str(tiny_corpus.path), "--store-dir", str(store), "--output-dir",
                         str(out), "--split", "calibration", "--no-validate"], capsys).code == 0
    extra = [str(tmp_path / value) if value in ("DIR", "NOWHERE") else value for value in extra]
    (tmp_path / "DIR").mkdir()
    outcome = run_tiny_cli(["freeze", "--corpus", str(tiny_corpus.path), "--store-dir", str(store), "--output-dir",
                            str(out), "--allow-dirty", *extra], capsys)
    assert_clean_failure(outcome.code, outcome.err, code)
    assert named in outcome.err
    assert not (out / "freeze.json").exists()
