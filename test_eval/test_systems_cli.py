"""The command line of comparisons between systems and of hypotheses: every malformed option named, with its fix
and the usage exit code, before anything is read or written; and a family of hypotheses declared as typed, each
per-hypothesis option given once for all or once per --hypothesis in order."""

import json
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
    (["--hypothesis", "hybrid != fts_only", "--hypothesis-baseline", "DIR", "--hypothesis-sided", "one"],
     'states no direction, so it cannot be tested one-sided: write "hybrid > fts_only" or "hybrid < fts_only", or '
     "test it two-sided (--hypothesis-sided two)", 2),
    (["--hypothesis", "hybrid > fts_only", "--hypothesis", "hybrid != vector_only", "--hypothesis-baseline", "DIR",
      "--hypothesis-sided", "one"], "'hybrid != vector_only' states no direction", 2),
    (["--hypothesis", "hybrid > fts_only", "--hypothesis-baseline", "DIR", "--hypothesis-sided", "both"],
     "invalid choice: 'both'", 2),
    (["--hypothesis-sided", "one"], "--hypothesis-sided without --hypothesis", 2),
    (["--hypothesis-metric", "mrr_at_10"], "--hypothesis-metric without --hypothesis", 2),
    (["--hypothesis", "hybrid > fts_only", "--hypothesis", "hybrid > vector_only", "--hypothesis-baseline", "DIR",
      "--hypothesis-baseline", "DIR", "--hypothesis-baseline", "DIR"],
     "--hypothesis-baseline is given 3 times for 2 --hypothesis: give it once for every hypothesis, or once per "
     "--hypothesis in the same order", 2),
    (["--hypothesis", "hybrid > fts_only", "--hypothesis", "hybrid > vector_only", "--hypothesis", "fts_only < hybrid",
      "--hypothesis-baseline", "DIR", "--hypothesis-test", "t_test", "--hypothesis-test", "randomization"],
     "--hypothesis-test is given 2 times for 3 --hypothesis", 2),
    (["--hypothesis", "hybrid > fts_only", "--hypothesis-baseline", "DIR", "--hypothesis-alpha", "0.05",
      "--hypothesis-alpha", "0.01"], "--hypothesis-alpha is given 2 times: the family of hypotheses has one "
                                     "family-wise alpha; give it once", 2),
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


def test_a_family_is_declared_as_typed(tiny_corpus: CorpusFixture, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Two hypotheses against one frozen baseline (one --hypothesis-baseline for both), each with its own metric and
    sidedness, one test for both, the family's alpha once; then a family testing one pair twice on one metric."""
    corpus = ["--corpus", str(tiny_corpus.path)]
    for name in ("base", "mine"):
        where = ["--store-dir", str(tmp_path / f"{name}-store"), "--output-dir", str(tmp_path / name)]
        assert run_tiny_cli(["run", *corpus, *where, "--split", "calibration", "--no-validate"], capsys).code == 0
    assert run_tiny_cli(["freeze", *corpus, "--store-dir", str(tmp_path / "base-store"), "--output-dir",
                         str(tmp_path / "base"), "--allow-dirty"], capsys).code == 0
    mine = ["freeze", *corpus, "--store-dir", str(tmp_path / "mine-store"), "--output-dir", str(tmp_path / "mine"),
            "--allow-dirty", "--hypothesis-baseline", str(tmp_path / "base")]
    twice = run_tiny_cli([*mine, "--hypothesis", "hybrid > fts_only", "--hypothesis", "hybrid < fts_only"], capsys)
    assert_clean_failure(twice.code, twice.err, 2)
    assert "both test this system's hybrid against" in twice.err and "declare each pair of modes once per metric" \
        in twice.err
    assert not (tmp_path / "mine" / "freeze.json").exists()
    outcome = run_tiny_cli([*mine, "--hypothesis", "hybrid > fts_only", "--hypothesis", "vector_only != vector_only",
                            "--hypothesis-metric", "ndcg_at_10", "--hypothesis-metric", "mrr_at_10",
                            "--hypothesis-sided", "one", "--hypothesis-sided", "two", "--hypothesis-test", "t_test",
                            "--hypothesis-alpha", "0.01"], capsys)
    assert outcome.code == 0, outcome.err
    family = json.loads((tmp_path / "mine" / "freeze.json").read_bytes())["hypotheses"]
    base = json.loads((tmp_path / "base" / "freeze.json").read_bytes())["freeze_sha256"]
    assert (family["alpha"], family["adjustment"]) == (0.01, "holm")
    assert [(m["statement"], m["a"]["mode"], m["b"]["mode"], m["b"]["freeze_sha256"], m["metric"], m["direction"],
             m["test"], m["sided"]) for m in family["members"]] == [
        ("hybrid > fts_only", "hybrid", "fts_only", base, "ndcg_at_10", "a_greater", "t_test", "one"),
        ("vector_only != vector_only", "vector_only", "vector_only", base, "mrr_at_10", "two_sided", "t_test", "two")]
    # the baseline named by an absolute path: the record names it in words, never the place
    assert [m["b"]["output_dir"] for m in family["members"]] == ["[local path]/base"] * 2
    assert str(tmp_path) not in (tmp_path / "mine" / "freeze.json").read_text(encoding="utf-8")
    assert 'hypothesis declared: "hybrid > fts_only"' in outcome.out and "one-sided t_test" in outcome.out
    assert "a family of 2 hypotheses, decided by Holm's adjustment over the family at family-wise alpha 0.01" \
        in outcome.out
