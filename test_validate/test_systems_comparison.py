"""The validator's check of a comparison between systems (docs/comparing-systems.md) on a genuine file: two real
evaluations of the tiny corpus, the second's freeze declaring a family of hypotheses against the first's, compared on
held-out and on calibration; the command line's dispatch on the file's schema, and its refusal of the earlier format;
the pairing rule on its own."""

import json
from pathlib import Path

import pytest

from harness.validator.cli import main as validator_main
from harness.validator.comparison.systems_pairs import rule_pairs
from harness.validator.core.catalog import CHECKS
from harness.validator.pipeline import validate_comparison, validate_systems_comparison

from .support import Json, describe
from .systems_compared import SystemsCompared

SYSTEMS_CHECKS = sorted(name for name in CHECKS if name.startswith("systems."))


@pytest.mark.real_model
def test_a_heldout_comparison_with_a_confirmatory_hypothesis_is_eligible(systems_heldout: SystemsCompared,
                                                                         tmp_path: Path) -> None:
    copy = systems_heldout.fresh(tmp_path)
    report = validate_systems_comparison(copy.path, known=systems_heldout.known)
    assert report.eligible, describe(report)
    assert sorted(c.name for c in report.checks) == SYSTEMS_CHECKS
    document = json.loads(copy.path.read_text(encoding="utf-8"))
    assert copy.path.name == "tiny-test-systems-heldout.json"
    assert [run["output_dir"] for run in document["runs"]] == ["../builtin", "."]
    assert [(c["a"], c["b"], c["status"]) for c in document["comparisons"]] == [
        ("k1/fts_only", "builtin/fts_only", "confirmatory"), ("k1/vector_only", "builtin/vector_only", "exploratory"),
        ("k1/hybrid", "builtin/hybrid", "exploratory"), ("k1/hybrid", "builtin/fts_only", "confirmatory"),
        ("k1/vector_only", "builtin/fts_only", "confirmatory")]
    [family] = document["hypotheses"]
    assert (family["declared_by"], family["freeze_field"], family["alpha"], family["adjustment"]) == (
        "k1", "hypotheses", 0.05, "holm")
    assert [(h["status"], h["pair"], h["result"]["test_ran"]) for h in family["members"]] == [
        ("confirmatory", {"a": "k1/hybrid", "b": "builtin/fts_only"},
         "one-sided paired randomization test, H1: k1/hybrid > builtin/fts_only"),
        ("confirmatory", {"a": "k1/fts_only", "b": "builtin/fts_only"},
         "two-sided paired t-test, H1: k1/fts_only != builtin/fts_only"),
        ("confirmatory", {"a": "k1/vector_only", "b": "builtin/fts_only"},
         "one-sided paired t-test, H1: k1/vector_only < builtin/fts_only")]
    difference = document["comparisons"][3]["metrics"]["ndcg_at_10"]
    assert family["members"][0]["result"]["mean_difference"] == difference["mean_difference"]
    assert validate_comparison(copy.path, known=systems_heldout.known).eligible  # dispatched on its schema


@pytest.mark.real_model
def test_the_command_line_dispatches_on_the_schema(systems_heldout: SystemsCompared, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A calibration comparison of one chosen mode per run, validated from scratch by the command line: eligible, its
    hypothesis exploratory (calibration only) though its pair is compared as declared; then a forged copy fails."""
    copy = systems_heldout.fresh(tmp_path, split="calibration")
    document = json.loads(copy.path.read_text(encoding="utf-8"))
    assert [(c["a"], c["b"], c["status"]) for c in document["comparisons"]] == [
        ("k1/hybrid", "builtin/fts_only", "exploratory")]
    [family] = document["hypotheses"]
    assert [(h["status"], h["reason"], h["result"]) for h in family["members"]] == [
        ("exploratory", "a hypothesis is tested on the held-out split only", None)] * 3
    assert validator_main(["--comparison", str(copy.path)]) == 0
    printed = capsys.readouterr().out
    assert "ELIGIBLE for a claim" in printed and "PASS         systems.hypothesis" in printed
    assert " comparison." not in printed  # no check of a comparison of modes ran
    document["comparisons"][0]["metrics"]["recall_at_5"]["wins"] += 1
    copy.path.write_text(json.dumps(document), encoding="utf-8")
    assert validator_main(["--comparison", str(copy.path), "--no-embedding-check"]) == 1
    printed = capsys.readouterr().out
    assert "FAIL         systems.statistics" in printed and "NOT ELIGIBLE" in printed


@pytest.mark.real_model
@pytest.mark.parametrize(("earlier", "what"), [("v1", "families of hypotheses"),
                                               ("v2", "runs recorded their fixture and embedding")])
def test_a_comparison_of_an_earlier_format_is_refused_naming_the_fix(systems_heldout: SystemsCompared,
                                                                     tmp_path: Path, earlier: str, what: str) -> None:
    copy = systems_heldout.fresh(tmp_path)
    document = json.loads(copy.path.read_text(encoding="utf-8"))
    copy.path.write_text(json.dumps({**document, "schema": f"scifact-systems-comparison-{earlier}"}), encoding="utf-8")
    report = validate_comparison(copy.path, known=systems_heldout.known)
    [check] = report.checks
    assert (check.name, check.status, report.eligible) == ("systems.schema", "fail", False)
    assert what in str(check.found) and "compare the runs again with this harness" in str(check.found), check.line()


def test_the_pairing_rule() -> None:
    """docs/comparing-systems.md's rule on three runs: same modes pair; a run given a chosen mode pairs with every arm;
    later runs minus earlier ones, or each other run minus the baseline."""
    runs: list[Json] = [{"name": "a", "modes": ["fts_only", "vector_only", "hybrid"], "mode_choice": None},
            {"name": "b", "modes": ["hybrid"], "mode_choice": "hybrid"},
            {"name": "c", "modes": ["fts_only", "hybrid"], "mode_choice": None}]
    assert rule_pairs(runs, None) == [
        ("b/hybrid", "a/fts_only"), ("b/hybrid", "a/vector_only"), ("b/hybrid", "a/hybrid"),
        ("c/fts_only", "a/fts_only"), ("c/hybrid", "a/hybrid"), ("c/fts_only", "b/hybrid"), ("c/hybrid", "b/hybrid")]
    assert rule_pairs(runs, "b") == [("a/fts_only", "b/hybrid"), ("a/vector_only", "b/hybrid"),
                                     ("a/hybrid", "b/hybrid"), ("c/fts_only", "b/hybrid"), ("c/hybrid", "b/hybrid")]
    assert rule_pairs(runs[::2], "a") == [("c/fts_only", "a/fts_only"), ("c/hybrid", "a/hybrid")]


@pytest.mark.real_model
@pytest.mark.parametrize("split", ["heldout", "calibration"])
def test_the_harness_writes_what_the_specification_builds(systems_heldout: SystemsCompared, split: str,
                                                          tmp_path: Path) -> None:
    """`python -m harness compare --run` and the builder written from docs/comparing-systems.md agree byte for byte:
    two readings of the specification, the validator's and the harness's, on the same real runs."""
    from harness.evaluation.comparison.run_specs import RunSpec as HarnessRunSpec
    from harness.evaluation.comparison.systems_artifact import SystemsRequest, compare_systems

    copy = systems_heldout.fresh(tmp_path, split=split)
    built = copy.path.read_bytes()
    copy.path.unlink()
    specs = [HarnessRunSpec(spec.name, spec.directory, spec.mode) for spec in copy.specs(split)]
    written, _, _ = compare_systems(SystemsRequest(output_dir=copy.k1.out, split=split, runs=specs),
                                    lambda judged: [(True, "ELIGIBLE")] * len(judged))
    assert written == copy.path
    assert written.read_bytes() == built
