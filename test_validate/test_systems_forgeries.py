"""Forged comparisons between systems, each refused by the check that names what was forged, and nothing else but
what the forgery necessarily breaks too (isolation.py): the session's genuine held-out comparison (or its calibration
comparison) forged as a careful forger would, resealing what the forgery leaves stale."""

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.validator.core.report import Report
from harness.validator.pipeline import validate_systems_comparison

from .comparisons import varied_output
from .isolation import Expected, assert_isolated
from .support import Json, describe, failed_names
from .systems_compared import SystemsCompared, SystemsCopy
from .systems_comparison_builder import CONFIRMATORY
from .systems_forgery import (
    OTHER_DIGEST,
    edit_document,
    freeze_edited,
    judgement_added,
    ranking_reversed,
    receipts,
    reseal_digests,
)
from .test_systems_coverage import ELIGIBILITY, Violation

ONLY_ELIGIBILITY = Expected(also=frozenset({ELIGIBILITY}), why="the forged aggregate fails its own validation too")


def _another_fixture(copy: SystemsCopy) -> Path:
    """k1's receipts name another fixture than the one they ran on, of the same data as far as the receipts say: the
    fixture its validation read is not the one named (a genuinely other fixture of other data: test_models_compared)."""
    receipts(copy.k1, lambda r: r["corpus"].update(fixture_sha256=OTHER_DIGEST))
    return copy.rebuild()


def _freeze_swapped(copy: SystemsCopy) -> Path:
    """builtin's freeze record replaced by k1's (a genuine record of its own digest), the comparison resealed."""
    copy.builtin.freeze_path.write_bytes(copy.k1.freeze_path.read_bytes())
    return copy.rebuild()


def _hypothesis_edited(copy: SystemsCopy) -> Path:
    freeze_edited(copy.k1, lambda record: record["hypotheses"]["members"][0].update(direction="a_less"), reseal=False)
    return copy.rebuild()


def _judgement_changed(copy: SystemsCopy) -> Path:
    judgement_added(copy.k1, "fts_only")
    return copy.rebuild()


def _ranking_resealed(copy: SystemsCopy) -> Path:
    ranking_reversed(copy.k1, "fts_only", restate_metrics=True)
    return copy.rebuild()


def _started_before(copy: SystemsCopy) -> Path:
    """k1/hybrid's receipt says it started before k1's freeze; the file still calls the hypothesis confirmatory."""
    copy.k1.edit_receipt("hybrid", "heldout", lambda r: r["run"].update(started_at="2001-01-01T00:00:00Z"))
    return reseal_digests(copy, "k1", "hybrid")


def _result(change: Callable[[Json], object], member: int = 0) -> Callable[[Json], object]:
    return lambda document: change(document["hypotheses"][0]["members"][member]["result"])


def _swap_confirmatory(document: Json) -> None:
    pair = document["comparisons"][3]
    pair["a"], pair["b"] = pair["b"], pair["a"]


def _document(change: Callable[[Json], object]) -> Callable[[SystemsCopy], Path]:
    return lambda copy: edit_document(copy.path, change)


FORGERIES: dict[str, tuple[str, Violation]] = {
    "inputs from another fixture": ("systems.data", Violation(_another_fixture, ONLY_ELIGIBILITY)),
    "a hypothesis edited after held-out, the record's digest left": (
        "systems.inputs", Violation(_hypothesis_edited, Expected(stops=True))),
    "a run's freeze swapped": ("systems.inputs", Violation(_freeze_swapped, Expected(stops=True))),
    "a confirmatory result's p changed": ("systems.hypothesis", Violation(_document(_result(
        lambda r: r.update(p_value=0.01))))),
    "a confirmatory result's supported changed": ("systems.hypothesis", Violation(_document(_result(
        lambda r: r.update(supported=True))))),
    "the confirmatory pair turned round": ("systems.statistics", Violation(_document(_swap_confirmatory), Expected(
        also=frozenset({"systems.hypothesis"}), why="the declared orientation is no longer compared"))),
    "pairs reordered": ("systems.statistics", Violation(_document(lambda d: d["comparisons"].reverse()))),
    "a pair dropped": ("systems.statistics", Violation(_document(lambda d: d["comparisons"].pop(2)))),  # exploratory
    "a judgement changed in one run's rows only": ("systems.experiment", Violation(_judgement_changed,
                                                                                   ONLY_ELIGIBILITY)),
    "a ranking edited, its metrics and every digest resealed": (ELIGIBILITY, Violation(_ranking_resealed)),
    "an arm started before the declaration, still confirmatory": ("systems.hypothesis", Violation(
        _started_before, ONLY_ELIGIBILITY)),
}


@pytest.mark.real_model
@pytest.mark.parametrize("forgery", sorted(FORGERIES))
def test_a_forgery_is_refused_by_its_check(forgery: str, systems_heldout: SystemsCompared,
                                           clean_systems_report: Report, tmp_path: Path) -> None:
    name, violation = FORGERIES[forgery]
    report = validate_systems_comparison(violation.apply(systems_heldout.fresh(tmp_path)),
                                         known=systems_heldout.known)
    assert_isolated(name, violation.expected, report, clean_systems_report)
    assert not report.eligible and report.exit_code() == 1


@pytest.mark.real_model
def test_an_arm_started_before_the_declaration_makes_the_hypothesis_exploratory(
        systems_heldout: SystemsCompared, tmp_path: Path) -> None:
    """Built again after the receipt's edit, the file says why the hypothesis is exploratory, and the validator agrees
    (the pair is still compared, as declared); only the edited aggregate's own validation objects."""
    copy = systems_heldout.fresh(tmp_path)
    _started_before(copy)
    path = copy.rebuild()
    [family] = json.loads(path.read_text(encoding="utf-8"))["hypotheses"]
    hypothesis, *others = family["members"]
    assert hypothesis["status"] == "exploratory" and hypothesis["result"] is None
    assert hypothesis["reason"].startswith("k1/hybrid started at 2001-01-01T00:00:00Z, not after")
    assert [other["status"] for other in others] == ["confirmatory", "confirmatory"]  # arms of k1 not edited
    report = validate_systems_comparison(path, known=systems_heldout.known)
    assert failed_names(report) == {ELIGIBILITY}, describe(report)


@pytest.mark.real_model
def test_a_calibration_comparison_claiming_confirmatory_is_refused(systems_heldout: SystemsCompared,
                                                                   tmp_path: Path) -> None:
    copy = systems_heldout.fresh(tmp_path, split="calibration")
    clean = validate_systems_comparison(copy.path, known=systems_heldout.known)
    assert clean.eligible, describe(clean)

    def claim(document: Json) -> None:
        [family], [pair] = document["hypotheses"], document["comparisons"]
        hypothesis = family["members"][0]
        stats = pair["metrics"]["ndcg_at_10"]
        p = stats["randomization"]["p_value"]
        hypothesis.update(status="confirmatory", reason=CONFIRMATORY, result={
            "metric": "ndcg_at_10", "test": "randomization", "sided": "one",
            "test_ran": "one-sided paired randomization test, H1: k1/hybrid > builtin/fts_only",
            "mean_difference": stats["mean_difference"], "p_value": p, "holm_p_value": min(1.0, 3 * p), "alpha": 0.05,
            "significant": False, "in_declared_direction": stats["mean_difference"] > 0, "supported": False})
        pair["status"] = "confirmatory"
    report = validate_systems_comparison(edit_document(copy.path, claim), known=systems_heldout.known)
    assert_isolated("systems.hypothesis", Expected(), report, clean)


def test_varied_rankings_recompute_alike(systems_heldout: SystemsCompared, tmp_path: Path) -> None:
    """Held-out rows of 40 queries whose rankings differ by mode (the same draws in both runs, so only the pairs across
    modes differ, the confirmatory one among them): every statistic and the hypothesis's result the builder computes
    with the runner's code, the validator recomputes with its own. The rows are not the stores' rankings, so only
    the inputs' own eligibility fails."""
    copy = systems_heldout.fresh(tmp_path)
    for run in (copy.builtin, copy.k1):
        varied_output(run, queries=40, seed=3, split="heldout")
    path = copy.rebuild()
    document = json.loads(path.read_text(encoding="utf-8"))
    confirmatory = document["comparisons"][3]["metrics"]["ndcg_at_10"]
    assert document["comparisons"][3]["status"] == "confirmatory" and confirmatory["wins"] and confirmatory["losses"]
    [family] = document["hypotheses"]
    one_sided, undefined, one_sided_t = (member["result"] for member in family["members"])
    assert one_sided["mean_difference"] == confirmatory["mean_difference"] != 0.0
    assert one_sided["p_value"] != confirmatory["randomization"]["p_value"]  # one-sided, not the two-sided p
    assert undefined["p_value"] is None and undefined["holm_p_value"] is None  # identical arms: no t-test
    assert one_sided_t["p_value"] is not None and one_sided_t["p_value"] <= one_sided_t["holm_p_value"]
    report = validate_systems_comparison(path, embeddings=False)
    assert failed_names(report) == {ELIGIBILITY}, describe(report)
    forged = edit_document(path, _result(lambda r: r.update(mean_difference=-r["mean_difference"])))
    assert failed_names(validate_systems_comparison(forged, embeddings=False)) == {ELIGIBILITY, "systems.hypothesis"}


def _two_sided_p(document: Json) -> None:
    """The one-sided member's p replaced by its pair's two-sided randomization p, Holm and the call restated."""
    result = document["hypotheses"][0]["members"][0]["result"]
    p = document["comparisons"][3]["metrics"]["ndcg_at_10"]["randomization"]["p_value"]
    result.update(p_value=p, holm_p_value=min(1.0, 3 * p), significant=min(1.0, 3 * p) < 0.05)
    result["supported"] = result["significant"] and result["in_declared_direction"]


def _unadjusted(document: Json) -> None:
    """The one-sided member read unadjusted, as if it were the only hypothesis of its family."""
    result = document["hypotheses"][0]["members"][0]["result"]
    result.update(holm_p_value=result["p_value"], significant=result["p_value"] < 0.05)
    result["supported"] = result["significant"] and result["in_declared_direction"]


def _status_flipped(document: Json) -> None:
    member = document["hypotheses"][0]["members"][2]
    member.update(status="exploratory", result=None)
    document["comparisons"][4]["status"] = "exploratory"


VARIED_FORGERIES: dict[str, Callable[[Json], object]] = {
    "a one-sided p stated as the two-sided one": _two_sided_p,
    "a Holm-adjusted p stated unadjusted": _unadjusted,
    "a one-sided t-test's p halved": _result(lambda r: r.update(p_value=r["p_value"] / 2), member=2),
    "a member's test described two-sided": _result(lambda r: r.update(
        test_ran=r["test_ran"].replace("one-sided", "two-sided").replace(" > ", " != "))),
    "a member's sidedness changed in the comparison": lambda d: d["hypotheses"][0]["members"][0]["declaration"].update(
        sided="two"),
    "the family's alpha raised in the comparison": lambda d: d["hypotheses"][0].update(alpha=0.5),
    "a confirmatory member stated exploratory": _status_flipped,
    "a member dropped from the family": lambda d: d["hypotheses"][0]["members"].pop(1),
}


@pytest.mark.parametrize("forgery", sorted(VARIED_FORGERIES))
def test_a_forged_hypothesis_reading_is_refused(forgery: str, systems_heldout: SystemsCompared,
                                                 tmp_path: Path) -> None:
    """On the varied rows (the family's numbers not degenerate), each forgery of a family's reading fails
    systems.hypothesis, and nothing else but the inputs' own eligibility (the rows are not the stores')."""
    copy = systems_heldout.fresh(tmp_path)
    for run in (copy.builtin, copy.k1):
        varied_output(run, queries=40, seed=3, split="heldout")
    path = edit_document(copy.rebuild(), VARIED_FORGERIES[forgery])
    report = validate_systems_comparison(path, embeddings=False)
    assert failed_names(report) == {ELIGIBILITY, "systems.hypothesis"}, describe(report)
