"""Every check of a comparison between systems can fail, alone: for each `systems.*` name in the validator's catalog,
a forgery of the session's genuine held-out comparison (two real evaluations, a family of confirmatory hypotheses)
that violates that check, and the assertion that the validator fails it while every other check reports what it
reports on the genuine comparison (isolation.py). test_check_coverage.py counts these names as covered.

Adding a check: add its violation to SYSTEMS_VIOLATIONS, declaring with `Expected(also=..., why=...)` any check the
violation necessarily fails too, and `unreached`/`stops` for checks the validator then does not run.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from harness.validator.core.report import Report
from harness.validator.pipeline import validate_systems_comparison

from .isolation import Expected, assert_isolated
from .support import Json, failed_names
from .systems_compared import SystemsCompared, SystemsCopy
from .systems_comparison_builder import RunSpec
from .systems_forgery import edit_document, freeze_edited, ranking_reversed

ELIGIBILITY = "systems.inputs_eligible"
ISOLATED = Expected()


@dataclass(frozen=True)
class Violation:
    apply: Callable[[SystemsCopy], Path]  # forges the copy; returns the comparison to validate
    expected: Expected = field(default_factory=Expected)


def _document(change: Callable[[Json], object], expected: Expected = ISOLATED) -> Violation:
    return Violation(lambda copy: edit_document(copy.path, change), expected)


def _hypothesis_edited_after_heldout(copy: SystemsCopy) -> Path:
    """k1's family-wise alpha raised after its held-out runs, the record's digest and the comparison resealed: the
    receipts still name the digest of the hypotheses they ran under."""
    freeze_edited(copy.k1, lambda record: record["hypotheses"].update(alpha=0.5), reseal=True)
    return copy.rebuild()


def _ranking_edited(copy: SystemsCopy) -> Path:
    ranking_reversed(copy.builtin, "fts_only", restate_metrics=False)
    return copy.rebuild()


def _run_given_twice(copy: SystemsCopy) -> Path:
    return copy.rebuild([*copy.specs(), RunSpec("k1-again", copy.k1.out)])


def _holm(document: Json) -> None:
    document["comparisons"][0]["metrics"]["ndcg_at_10"]["holm_p_value"] = 0.5


def _relabelled(document: Json) -> None:
    """hybrid - hybrid, a pair no hypothesis names."""
    document["comparisons"][2]["status"] = "confirmatory"


def _ineligible_input(copy: SystemsCopy) -> Path:
    """An aggregate whose failure count no longer recomputes (its means untouched), resealed into the comparison."""
    copy.builtin.edit_aggregate("vector_only", "heldout", lambda a: a["metrics"].update(failures=1))
    return copy.rebuild()


def _other_documents(document: Json) -> None:
    """The comparison's word on the documents every fixture holds, and nothing else, changed."""
    document["content"]["documents"] = "sha256:" + "0" * 64


SYSTEMS_VIOLATIONS: dict[str, Violation] = {
    "systems.schema": _document(lambda d: d.update(unexpected=True), Expected(stops=True)),
    "systems.inputs": Violation(_hypothesis_edited_after_heldout, Expected(stops=True)),
    "systems.rows": Violation(_ranking_edited, Expected(
        also=frozenset({ELIGIBILITY}), unreached=frozenset({"systems.statistics", "systems.hypothesis"}),
        why="the stale metrics are in builtin/fts_only's own rows, so that aggregate fails rows.metrics")),
    "systems.experiment": Violation(_run_given_twice),
    "systems.statistics": _document(_holm),
    "systems.hypothesis": _document(_relabelled),
    "systems.inputs_eligible": Violation(_ineligible_input),
    "systems.data": _document(_other_documents),
}


@pytest.mark.real_model
@pytest.mark.parametrize("name", sorted(SYSTEMS_VIOLATIONS))
def test_the_violation_fails_its_check_and_no_other(name: str, systems_heldout: SystemsCompared,
                                                     clean_systems_report: Report, tmp_path: Path) -> None:
    violation = SYSTEMS_VIOLATIONS[name]
    path = violation.apply(systems_heldout.fresh(tmp_path))
    report = validate_systems_comparison(path, known=systems_heldout.known)
    assert_isolated(name, violation.expected, report, clean_systems_report)
    assert name in failed_names(report) and not report.eligible and report.exit_code() == 1
