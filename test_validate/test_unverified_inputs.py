"""What could only not be verified is never reported as failed: a comparison whose inputs are not verified is itself
not verified (exit 7), a bundle of such artifacts says NOT VERIFIED, and a reader on another machine, whose interpreter
is not the run's, is told the run's interpreter is the run's statement, while on the run's machine a digest the
output directory does not place still fails."""

import copy
import dataclasses
import json
from pathlib import Path

import pytest

from harness.validator.bundle_reader import Verdict, bundle_lines
from harness.validator.comparison.inputs_verdict import judge_inputs
from harness.validator.core.locations import INTERPRETERS
from harness.validator.core.report import FAIL, NOT_VERIFIED, Check, Report
from harness.validator.options import NOT_VERIFIED as NOT_VERIFIED_EXIT
from harness.validator.pipeline import validate, validate_comparison, validate_systems_comparison

from .comparisons import Compared
from .support import RunCopy, check_named, describe, sha256_bytes
from .systems_compared import SystemsCompared


def _with(report: Report, name: str, status: str) -> Report:
    """A copy of `report` whose check `name` has `status`."""
    changed = copy.copy(report)
    changed.checks = [dataclasses.replace(c, status=status) if c.name == name else c for c in report.checks]
    return changed


def _inputs_as(known: dict[str, Report], status: str) -> dict[str, Report]:
    """Every known report with its embedding check set to `status` (the inputs' own checks, not the comparison's)."""
    return {digest: _with(report, "embeddings.model", status) for digest, report in known.items()}


@pytest.mark.real_model
def test_a_comparison_of_modes_with_an_unverified_input_is_not_verified(compared_heldout: Compared,
                                                                       tmp_path: Path) -> None:
    _, path = compared_heldout.fresh(tmp_path)
    unverified = validate_comparison(path, known=_inputs_as(compared_heldout.known, NOT_VERIFIED))
    inputs = check_named(unverified, "comparison.inputs_eligible")
    assert inputs.status == NOT_VERIFIED and "embeddings.model not verified" in inputs.detail, describe(unverified)
    assert not unverified.failed and unverified.exit_code() == NOT_VERIFIED_EXIT
    failed = validate_comparison(path, known=_inputs_as(compared_heldout.known, FAIL))
    assert check_named(failed, "comparison.inputs_eligible").status == FAIL and failed.exit_code() == 1


@pytest.mark.real_model
def test_a_comparison_between_systems_with_an_unverified_input_is_not_verified(systems_heldout: SystemsCompared,
                                                                              tmp_path: Path) -> None:
    path = systems_heldout.fresh(tmp_path).path
    unverified = validate_systems_comparison(path, known=_inputs_as(systems_heldout.known, NOT_VERIFIED))
    assert check_named(unverified, "systems.inputs_eligible").status == NOT_VERIFIED, describe(unverified)
    assert unverified.exit_code() == NOT_VERIFIED_EXIT
    failed = validate_systems_comparison(path, known=_inputs_as(systems_heldout.known, FAIL))
    assert check_named(failed, "systems.inputs_eligible").status == FAIL


def _report(subject: str, status: str | None) -> Report:
    report = Report(subject)
    report.ok("json.strict", "parsed")
    if status == NOT_VERIFIED:
        report.unverified("embeddings.model", "no model at hand")
    elif status == FAIL:
        report.fail("aggregate.metrics", "a metric differs", 1, 2)
    return report


def test_a_bundle_of_unverified_artifacts_says_not_verified_and_exits_7(tmp_path: Path) -> None:
    verdicts = [Verdict("artifacts/a.aggregate.json", _report("a", None)),
                Verdict("artifacts/b.aggregate.json", _report("b", NOT_VERIFIED))]
    lines, code = bundle_lines(tmp_path / "bundle", [], verdicts)
    assert code == NOT_VERIFIED_EXIT
    assert lines[-1].startswith("BUNDLE       NOT VERIFIED: bundle: nothing failed, and artifacts/b.aggregate.json "
                                "could not be verified here"), lines[-1]
    assert "VERDICT      NOT VERIFIED: artifacts/b.aggregate.json" in "\n".join(lines)
    lines, code = bundle_lines(tmp_path / "bundle", [], [*verdicts, Verdict("artifacts/c.json", _report("c", FAIL))])
    assert code == 1 and lines[-1].startswith("BUNDLE       NOT ELIGIBLE for a claim: bundle: failed: artifacts/c.json")


@pytest.mark.real_model
def test_the_runs_interpreter_is_attested_where_no_output_directory_places_it(run_copy: RunCopy) -> None:
    aggregate = run_copy.aggregate_path("fts_only", "calibration")
    places = run_copy.locations()
    places[INTERPRETERS] = {}  # as on a reader's machine: the run's output directory places no interpreter
    run_copy.locations_path.write_text(json.dumps(places), encoding="utf-8")
    same = validate(aggregate, embeddings=False)  # this interpreter is the run's: established
    assert check_named(same, "executable.interpreter").status == "pass"
    other = sha256_bytes(b"the publisher's own build of python")
    run_copy.edit_receipt("fts_only", "calibration", lambda r: r["executable"].update(interpreter_sha256=other))
    elsewhere = validate(aggregate, embeddings=False)
    assert "executable.interpreter" not in {c.name for c in elsewhere.checks}, describe(elsewhere)
    [attested] = [a for a in elsewhere.attestations if a.name == "executable"]
    assert other in attested.detail and "the run's statement" in attested.detail


def _checks(report: Report, status: str, names: list[str]) -> Report:
    for name in names:
        report.checks.append(Check(name, status, "a check"))
    return report


def test_a_comparisons_inputs_are_judged_by_what_failed_first_then_what_was_not_verified() -> None:
    names = [f"aggregate.metrics{'' if i == 0 else i}" for i in range(8)]
    failing = _checks(Report("f"), FAIL, names)
    unverified = _checks(Report("u"), NOT_VERIFIED, names)
    fine = _checks(Report("e"), "pass", ["json.strict"])

    said = Report("comparison")
    judge_inputs(said, "comparison.inputs_eligible", "every input eligible", [], [("a", "a.json", fine)])
    assert [(c.status, c.detail) for c in said.checks] == [("pass", "every input eligible")]

    said = Report("comparison")
    judge_inputs(said, "comparison.inputs_eligible", "every input eligible", [],
                 [(f"u{i}", f"u{i}.json", unverified) for i in range(5)] + [("a", "a.json", fine)])
    [check] = said.checks
    assert check.status == NOT_VERIFIED and check.detail == (
        "every input eligible: no input failed, and these could not be verified here, so neither can the comparison: "
        + "; ".join(f"u{i}: u{i}.json ({', '.join(names[:6])} not verified)" for i in range(4)))

    said = Report("comparison")
    judge_inputs(said, "comparison.inputs_eligible", "every input eligible", ["the recorded verdicts are {}"],
                 [("u", "u.json", unverified), *[(f"f{i}", f"f{i}.json", failing) for i in range(4)]])
    [check] = said.checks
    assert check.status == FAIL and check.expected == "eligible inputs" and check.found == [
        "the recorded verdicts are {}",
        *[f"f{i}: f{i}.json is not eligible ({', '.join(names[:6])} failed)" for i in range(3)]]
