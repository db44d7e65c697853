"""Measures chosen by name, compared: `compare --measure NAME` compares a measure every compared run chose, beside the
default metrics, between the modes of one evaluation and between systems (a run file among them); the validator
recomputes it from the rows with its own code; a measure a run did not choose is refused before any statistic, naming
the run and the fix."""

import json
import re
import subprocess
from pathlib import Path

import pytest

from fixtures.archives import tiny_archive
from fixtures.cli import tiny_cli_process
from harness.errors import USAGE
from harness.fixture.corpus_fixture import CorpusFixture
from harness.validator.pipeline import validate_comparison
from test_eval.test_evaluate_run_file import tied_run, write_trec

GIT = {"source.git", "source.clean"}


def _ok(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.fixture
def evaluated(tiny_corpus: CorpusFixture, tmp_path: Path) -> Path:
    """The built-in system's calibration and a run file's, both choosing P@5 and nDCG@20 (the run file also R@3)."""
    corpus = ["--corpus", str(tiny_corpus.path)]
    _ok(tiny_cli_process(["run", *corpus, "--store-dir", str(tmp_path / "bstore"), "--output-dir",
                          str(tmp_path / "builtin"), "--split", "calibration", "--no-validate", "--measure", "P@5",
                          "--measure", "nDCG@20"], timeout=300))
    trec = write_trec(tied_run(tiny_corpus), tmp_path / "overlap.trec")
    _ok(tiny_cli_process(["evaluate", str(trec), *corpus, "--store-dir", str(tmp_path / "store"), "--output-dir",
                          str(tmp_path / "out"), "--split", "calibration", "--no-validate", "--measure", "nDCG@20",
                          "--measure", "P@5", "--measure", "R@3"], timeout=300))
    return tmp_path


def test_the_modes_compare_on_a_chosen_measure_and_the_validator_recomputes_it(evaluated: Path) -> None:
    archive = tiny_archive(evaluated / "tiny.zip")
    done = _ok(tiny_cli_process(["compare", "--output-dir", str(evaluated / "builtin"), "--split", "calibration",
                                 "--no-validate", "--measure", "P@5"], timeout=300))
    document = json.loads((evaluated / "builtin" / "tiny-test-comparison-calibration.json").read_text("utf-8"))
    assert document["metrics"][-1] == "P@5" and len(document["metrics"]) == 10, done.stdout
    for mode, metrics in document["modes"].items():
        aggregate = json.loads((evaluated / "builtin" / f"tiny-test-{mode}-calibration.aggregate.json").read_text(
            "utf-8"))
        assert metrics["P@5"]["mean"] == pytest.approx(aggregate["measures"]["means"]["P@5"], abs=1e-12)
    assert all("P@5" in pair["metrics"] for pair in document["comparisons"])
    report = validate_comparison(evaluated / "builtin" / "tiny-test-comparison-calibration.json", archive=archive)
    failed = {c.name for c in report.failed}
    assert failed <= {"comparison.inputs_eligible"}, [c.line() for c in report.failed]  # a dirty tree: source.clean
    assert {"comparison.means", "comparison.statistics"} <= {c.name for c in report.checks if c.status == "pass"}


def test_systems_compare_on_a_chosen_measure_and_a_measure_not_chosen_is_refused(evaluated: Path) -> None:
    runs = ["--run", f"builtin={evaluated / 'builtin'}", "--run", f"overlap={evaluated / 'out'}"]
    refused = tiny_cli_process(["compare", "--output-dir", str(evaluated / "cmp"), *runs, "--split", "calibration",
                                "--no-validate", "--measure", "R@3"], timeout=300)
    assert refused.returncode == USAGE and "Traceback" not in refused.stderr, refused.stderr
    assert re.search(r"--measure R@3: the run of builtin/fts_only, builtin/vector_only, builtin/hybrid did not "
                     r"choose it.*--measure R@3", refused.stderr), refused.stderr
    assert not (evaluated / "cmp" / "tiny-test-systems-calibration.json").exists()
    _ok(tiny_cli_process(["compare", "--output-dir", str(evaluated / "cmp"), *runs, "--split", "calibration",
                          "--no-validate", "--measure", "nDCG@20", "--measure", "P@5"], timeout=300))
    path = evaluated / "cmp" / "tiny-test-systems-calibration.json"
    document = json.loads(path.read_text("utf-8"))
    assert document["metrics"][-2:] == ["nDCG@20", "P@5"]
    assert document["arms"]["overlap/run_file"]["P@5"]["mean"] == pytest.approx(json.loads(
        (evaluated / "out" / "tiny-test-run_file-calibration.aggregate.json").read_text("utf-8"))["measures"]["means"][
        "P@5"], abs=1e-12)
    report = validate_comparison(path, archive=tiny_archive(evaluated / "tiny.zip"))
    assert {c.name for c in report.failed} <= {"systems.inputs_eligible"}, [c.line() for c in report.failed]
    forged = json.loads(path.read_text("utf-8"))
    forged["arms"]["overlap/run_file"]["P@5"]["mean"] += 0.05
    path.write_text(json.dumps(forged, indent=1), encoding="utf-8")
    again = validate_comparison(path, archive=tiny_archive(evaluated / "tiny.zip"))
    assert {c.name for c in again.failed} - {"systems.inputs_eligible"} == {"systems.statistics"}, [
        c.line() for c in again.failed]
