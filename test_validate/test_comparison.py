"""`python -m harness compare` on the clean tiny run: the artifact, its refusals, its determinism, and the
validator's recomputation (`python -m harness.validator --comparison`), forgeries included."""

import json
from pathlib import Path
from typing import Any

import pytest

from fixtures.cli import run_tiny_cli
from harness.evaluation.comparison.artifact import CompareRequest, compare
from harness.evaluation.comparison.inputs import ComparisonRefused
from harness.evaluation.gates.split_modes import MissingModeError
from harness.publish.verdicts import validator_judgement
from harness.validator.cli import main as validator_main
from harness.validator.core.catalog import CHECKS
from harness.validator.pipeline import validate_comparison

from .comparisons import Compared, compared, comparison_path, edit_comparison, taken_as_eligible, varied_output
from .support import MODES, RunCopy, describe, failed_names, sha256_file

COMPARISON_CHECKS = sorted(name for name in CHECKS if name.startswith("comparison."))


@pytest.mark.real_model
def test_a_heldout_comparison_of_eligible_runs_validates(compared_heldout: Compared, tmp_path: Path) -> None:
    run_copy, path = compared_heldout.fresh(tmp_path)
    document = json.loads(path.read_text(encoding="utf-8"))
    assert path.name == "tiny-test-comparison-heldout.json"
    report = validate_comparison(path, known=compared_heldout.known)
    assert report.eligible, describe(report)
    assert sorted({c.name for c in report.checks}) == COMPARISON_CHECKS
    assert document["query_count"] == 4
    assert document["inputs_validation"]["verdicts"] == dict.fromkeys(MODES, "ELIGIBLE")
    for entry in document["inputs"]:
        assert entry["rows_sha256"] == sha256_file(run_copy.out / entry["rows"])
        assert entry["aggregate_sha256"] == sha256_file(run_copy.out / entry["aggregate"])
    procedure = document["procedure"]
    assert (procedure["bootstrap_resamples"], procedure["permutations"]) == (10_000, 10_000)
    # The tiny run's three modes score alike on every query: nothing differs, nothing is significant.
    for comparison in document["comparisons"]:
        stats = comparison["metrics"]["ndcg_at_10"]
        assert (stats["mean_difference"], stats["ties"], stats["holm_p_value"]) == (0.0, 4, 1.0)


def test_the_same_rows_and_seed_give_a_byte_identical_file(run_copy: RunCopy) -> None:
    first, _, _ = compare(CompareRequest(run_copy.out, "calibration", validate_inputs=False), validator_judgement)
    before = first.read_bytes()
    again = CompareRequest(run_copy.out, "calibration", validate_inputs=False, replace=True)
    second, _, moved = compare(again, validator_judgement)
    assert moved is not None and moved.read_bytes() == before == second.read_bytes()
    assert moved.parent.parent == run_copy.out / "superseded"


def test_varied_rows_recompute_in_the_validator(run_copy: RunCopy) -> None:
    varied_output(run_copy)
    path, document, _ = compare(CompareRequest(run_copy.out, "calibration", validate_inputs=False), validator_judgement)
    assert document["inputs_validation"] == {"rule": document["inputs_validation"]["rule"], "validated": False,
                                             "verdicts": None}
    stats = document["comparisons"][1]["metrics"]["ndcg_at_10"]  # hybrid - fts_only
    assert stats["wins"] and stats["losses"] and stats["t_test"]["p_value"] is not None
    report = validate_comparison(path, embeddings=False)
    failed = failed_names(report)
    assert "comparison.inputs_eligible" in failed, describe(report)  # the rows are not the store's rankings
    assert not failed - {"comparison.inputs_eligible"}, describe(report)


def test_refusals(run_copy: RunCopy) -> None:
    request = CompareRequest(run_copy.out, "heldout")
    with pytest.raises(ComparisonRefused, match="for calibration comparisons only"):
        compare(CompareRequest(run_copy.out, "heldout", validate_inputs=False), taken_as_eligible)
    rows = run_copy.rows_path("hybrid", "heldout")
    original = rows.read_bytes()
    rows.write_bytes(original.replace(b'"latency_ms":', b'"latency_ms":1', 1))
    with pytest.raises(ComparisonRefused, match="they are not the rows of that receipt"):
        compare(request, taken_as_eligible)
    run_copy.edit_rows("hybrid", "heldout", lambda r: r[:-1], reseal_count=True)
    with pytest.raises(ComparisonRefused, match="list different queries"):
        compare(request, taken_as_eligible)
    rows.write_bytes(original)
    run_copy.aggregate_path("fts_only", "heldout").unlink()
    with pytest.raises(MissingModeError, match=r"lacks tiny-test-fts_only-heldout.aggregate.json: the freeze names"):
        compare(request, taken_as_eligible)
    assert not comparison_path(run_copy, "heldout").exists()
    compare(CompareRequest(run_copy.out, "calibration", validate_inputs=False), validator_judgement)
    with pytest.raises(ComparisonRefused, match="never overwritten"):
        compare(CompareRequest(run_copy.out, "calibration", validate_inputs=False), validator_judgement)


@pytest.mark.real_model
def test_a_heldout_comparison_of_an_ineligible_aggregate_is_refused(run_copy: RunCopy) -> None:
    run_copy.edit_aggregate("vector_only", "heldout", lambda a: a["metrics"].update(ndcg_at_10=0.5))
    with pytest.raises(ComparisonRefused, match="not ELIGIBLE") as caught:
        compared(run_copy)
    assert "tiny-test-vector_only-heldout.aggregate.json: NOT ELIGIBLE" in str(caught.value)
    assert "aggregate.metrics" in str(caught.value)
    assert not comparison_path(run_copy, "heldout").exists()


@pytest.mark.real_model
def test_a_forged_p_value_is_caught(compared_heldout: Compared, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    _, path = compared_heldout.fresh(tmp_path)

    def forge(document: dict[str, object]) -> None:
        stats = document["comparisons"][1]["metrics"]["ndcg_at_10"]  # type: ignore[index]
        stats["randomization"].update(extreme_count=9, p_value=0.000999900009999)
        stats.update(holm_p_value=0.002999700029997, significant_after_holm=True)
    edit_comparison(path, forge)
    report = validate_comparison(path, known=compared_heldout.known)
    assert {"comparison.statistics", "comparison.holm"} <= failed_names(report), describe(report)
    assert validator_main(["--comparison", str(path), "--no-embedding-check"]) == 1
    assert "NOT ELIGIBLE" in capsys.readouterr().out


def test_the_command_line(run_copy: RunCopy, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outcome = run_tiny_cli(["compare", "--output-dir", str(tmp_path / "missing"), "--split", "heldout"], capsys)
    assert outcome.code == 2 and outcome.err.startswith("error: --output-dir") and "Traceback" not in outcome.err
    outcome = run_tiny_cli(["compare", "--output-dir", str(tmp_path), "--split", "calibration"], capsys)
    assert outcome.code == 2
    assert "holds no calibration aggregate; run `" in outcome.err
    assert " -m harness run --split calibration" in outcome.err
    assert len(outcome.err.strip().splitlines()) == 1
    outcome = run_tiny_cli(["compare", "--output-dir", str(run_copy.out), "--split", "calibration", "--permutations",
                            "500", "--no-validate"], capsys)
    assert outcome.code == 2 and "--permutations: 500: give a whole number of at least 10000" in outcome.err
    for option, value, problem in (("--seed", "-1", "from 0 to 9223372036854775807"), ("--seed", str(2**63), "from 0"),
                                   ("--resamples", "999", "of at least 1000"), ("--resamples", "1e4", "not a whole")):
        outcome = run_tiny_cli(["compare", "--output-dir", str(run_copy.out), "--split", "calibration", option, value],
                               capsys)
        assert outcome.code == 2 and problem in outcome.err and "Traceback" not in outcome.err, outcome.err
    assert not comparison_path(run_copy, "calibration").exists()
    outcome = run_tiny_cli(["compare", "--output-dir", str(run_copy.out), "--split", "calibration", "--no-validate"],
                           capsys)
    assert outcome.code == 0, outcome.err
    assert "inputs NOT validated (--no-validate)" in outcome.out and "vector_only \u2212 fts_only" in outcome.out
    document = json.loads(comparison_path(run_copy, "calibration").read_text(encoding="utf-8"))
    assert document["inputs_validation"]["validated"] is False
    with pytest.raises(SystemExit) as missing:  # a comparison file that does not exist is a usage error
        validator_main(["--comparison", str(tmp_path / "nothing.json")])
    assert missing.value.code == 2 and "--comparison" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:
        validator_main(["--comparison", str(tmp_path / "x.json"), str(tmp_path / "a.aggregate.json")])
    assert usage.value.code == 2


def test_two_modes_compare_and_a_dropped_input_is_caught(run_copy: RunCopy) -> None:
    """Without a freeze, the modes present are compared; the validator holds the inputs, means and verdicts to one
    set of two modes or more in the declared order."""
    (run_copy.out / "freeze.json").unlink()
    for suffix in ("jsonl", "aggregate.json"):
        (run_copy.out / f"tiny-test-vector_only-calibration.{suffix}").unlink()
    path, document, _ = compare(CompareRequest(run_copy.out, "calibration", validate_inputs=False),
                                validator_judgement)
    assert [(c["a"], c["b"]) for c in document["comparisons"]] == [("hybrid", "fts_only")]
    assert not failed_names(validate_comparison(path, embeddings=False)) - {"comparison.inputs_eligible"}

    def drop_input(document: dict[str, Any]) -> None:
        document["inputs"] = document["inputs"][1:]
        document["comparisons"] = []
    edit_comparison(path, drop_input)
    report = validate_comparison(path, embeddings=False)
    assert "comparison.inputs" in failed_names(report) or "comparison.schema" in failed_names(report), describe(report)

    def reorder(document: dict[str, Any]) -> None:
        document["inputs"] = [document["inputs"][1], document["inputs"][0], document["inputs"][1]]
    path, _, _ = compare(CompareRequest(run_copy.out, "calibration", validate_inputs=False, replace=True),
                         validator_judgement)
    edit_comparison(path, reorder)
    assert "comparison.inputs" in failed_names(validate_comparison(path, embeddings=False))
    (run_copy.out / "tiny-test-hybrid-calibration.aggregate.json").unlink()
    with pytest.raises(ComparisonRefused, match="a comparison needs two modes or more"):
        compare(CompareRequest(run_copy.out, "calibration", validate_inputs=False, replace=True),
                validator_judgement)
