"""The validator's reading of the hypotheses declared at a freeze, on runs made up in memory: when one is confirmatory
(held-out only, both arms started after the declaration, no look at or before it), the orientation of its pair, the
declared test's result (one- or two-sided, Holm-adjusted over its family), an earlier record's single hypothesis read
as a family of one, and what `systems.hypothesis` refuses in a comparison's statement of them."""

from pathlib import Path
from typing import Any

import pytest

from harness.validator.comparison import paired_stats
from harness.validator.comparison.comparison_inputs import Input
from harness.validator.comparison.comparison_stats import TIE_MARGIN, difference
from harness.validator.comparison.systems_hypothesis import _problems, expected_entry, family_results
from harness.validator.comparison.systems_inputs import Run
from harness.validator.comparison.systems_pairs import (
    CONFIRMATORY_REASON,
    HELD_OUT_ONLY,
    Family,
    expected_pairs,
    hypotheses,
)

DECLARED_AT = "2026-01-01T00:00:10Z"
AFTER = "2026-01-01T00:00:20Z"
PERMUTATIONS = 10000
A = [0.9, 0.8, 1.0, 0.95, 0.85, 0.9, 1.0, 0.8]  # well above B on every query: significant, a greater
B = [0.1, 0.0, 0.2, 0.05, 0.0, 0.1, 0.3, 0.0]


def _declaration(**change: Any) -> dict[str, Any]:
    return {"a": {"mode": "hybrid"}, "b": {"mode": "hybrid", "freeze_sha256": "sha256:base"}, "metric": "ndcg_at_10",
            "test": "randomization", "sided": "two", "direction": "a_greater", "statement": "hybrid > hybrid", **change}


def _runs(*declarations: dict[str, Any], declaring_first: bool = False, single: bool = False) -> list[Run]:
    """base and mine, mine's freeze declaring `declarations` as a family at alpha 0.05 (or, `single`, its one
    declaration the way a record frozen before families did, at alpha 0.01)."""
    base = Run({"name": "base", "freeze": {"freeze_sha256": "sha256:base"}, "modes": ["hybrid"], "mode_choice": None},
               Path("base"), {"freeze_sha256": "sha256:base", "created_at": "2026-01-01T00:00:00Z"})
    record: dict[str, Any] = {"freeze_sha256": "sha256:mine", "created_at": DECLARED_AT}
    if single:
        [declaration] = declarations
        record["hypothesis"] = {**{k: v for k, v in declaration.items() if k != "sided"}, "alpha": 0.01}
    else:
        record["hypotheses"] = {"alpha": 0.05, "adjustment": "holm", "members": list(declarations)}
    mine = Run({"name": "mine", "freeze": {"freeze_sha256": "sha256:mine"}, "modes": ["hybrid"], "mode_choice": None},
               Path("mine"), record)
    return [mine, base] if declaring_first else [base, mine]


def _read(runs: list[Run], arms: dict[str, Input], split: str = "heldout") -> Any:
    """The one member of mine's family."""
    [family] = hypotheses(runs, arms, split)
    [member] = family.members
    return member


def _arm(mode: str, started: str, looks: list[str]) -> Input:
    receipt = {"run": {"started_at": started}, "heldout_looks": {
        "dataset": {"name": "tiny-test"}, "record_id": "record", "earlier_looks_at": looks}}
    return Input(mode, Path("rows"), Path("aggregate"), {"receipt": receipt})


def _arms(mine_started: str = AFTER, looks: tuple[str, ...] = ()) -> dict[str, Input]:
    return {"base/hybrid": _arm("hybrid", AFTER, list(looks)), "mine/hybrid": _arm("hybrid", mine_started, list(looks))}


def test_a_hypothesis_tested_as_declared_is_confirmatory() -> None:
    read = _read(_runs(_declaration()), _arms())
    assert (read.status, read.reason) == ("confirmatory", CONFIRMATORY_REASON)
    assert read.pair == ("mine/hybrid", "base/hybrid")


@pytest.mark.parametrize("split", ["all", "calibration"])
def test_a_hypothesis_is_confirmatory_on_the_heldout_split_only(split: str) -> None:
    """The all-query split holds the calibration queries the configuration was chosen on."""
    read = _read(_runs(_declaration()), _arms(), split)
    assert (read.status, read.reason) == ("exploratory", HELD_OUT_ONLY)


def test_an_arm_started_at_the_declaration_is_not_after_it() -> None:
    read = _read(_runs(_declaration()), _arms(mine_started=DECLARED_AT))
    assert read.status == "exploratory" and read.reason.startswith(f"mine/hybrid started at {DECLARED_AT}, not after")


def test_a_look_recorded_at_the_declaration_counts_as_earlier() -> None:
    read = _read(_runs(_declaration()), _arms(looks=(DECLARED_AT,)))
    assert read.status == "exploratory" and read.reason.startswith("1 earlier held-out look at tiny-test")
    assert _read(_runs(_declaration()), _arms(looks=(AFTER,))).status == "confirmatory"


def test_the_declared_pair_is_oriented_as_declared() -> None:
    """The declaring run first: the rule gives base - mine, the declaration mine - base, which takes its place."""
    runs = _runs(_declaration(), declaring_first=True)
    entries = [run.entry for run in runs]
    assert expected_pairs(entries, None, []) == [("base/hybrid", "mine/hybrid")]
    assert expected_pairs(entries, None, hypotheses(runs, _arms(), "heldout")) == [("mine/hybrid", "base/hybrid")]


def _values() -> dict[str, dict[str, list[float]]]:
    return {"mine/hybrid": {"ndcg_at_10": A}, "base/hybrid": {"ndcg_at_10": B}}


def _drawn() -> paired_stats.Sample:
    return paired_stats.sample(7, len(A), 1000, PERMUTATIONS)


def _results(*declarations: dict[str, Any], single: bool = False) -> tuple[Family, list[dict[str, Any] | None]]:
    [family] = hypotheses(_runs(*declarations, single=single), _arms(), "heldout")
    return family, family_results(family, _values(), _drawn(), PERMUTATIONS)


def test_the_declared_test_gives_the_p_value() -> None:
    mine = difference(A, B, _drawn(), PERMUTATIONS)
    assert mine["p_value"] != mine["t_p"]
    for test, key in (("randomization", "p_value"), ("t_test", "t_p")):
        [found] = _results(_declaration(test=test))[1]
        assert found is not None and found["p_value"] == found["holm_p_value"] == mine[key]


@pytest.mark.parametrize("test", ["randomization", "t_test"])
def test_a_one_sided_test_reads_the_declared_tail(test: str) -> None:
    """A's values lie above B's on every query: H1 a > b gets the small tail, H1 a < b the large one."""
    d = [a - b for a, b in zip(A, B, strict=True)]
    [toward] = _results(_declaration(test=test, sided="one"))[1]
    [away] = _results(_declaration(test=test, sided="one", direction="a_less"))[1]
    assert toward is not None and away is not None
    if test == "randomization":
        assert toward["p_value"] == (paired_stats.sign_flip_directed(d, _drawn(), TIE_MARGIN, True) + 1) / (
            PERMUTATIONS + 1)
        assert away["p_value"] == 1.0  # every permutation sums to at most the observed sum
    else:
        two_sided = difference(A, B, _drawn(), PERMUTATIONS)["t_p"]
        assert toward["p_value"] == pytest.approx(two_sided / 2, abs=1e-15)
        assert away["p_value"] == pytest.approx(1 - two_sided / 2, abs=1e-15)
    assert toward["test_ran"].startswith("one-sided") and " > " in toward["test_ran"]
    assert toward["supported"] and not away["significant"]


def test_the_family_is_adjusted_over_its_declared_members() -> None:
    """Two members tested, one whose baseline is not here: Holm over m = 3, the absent one at p = 1."""
    elsewhere = _declaration(b={"mode": "hybrid", "freeze_sha256": "sha256:elsewhere"})
    family, (one, two, absent) = _results(_declaration(sided="one"), _declaration(test="t_test"), elsewhere)
    assert absent is None and family.members[2].status == "exploratory" and one is not None and two is not None
    low, high = sorted([one["p_value"], two["p_value"]])
    assert sorted([one["holm_p_value"], two["holm_p_value"]]) == pytest.approx([3 * low, max(3 * low, 2 * high)],
                                                                                abs=1e-15)


def test_the_adjusted_p_decides_not_the_unadjusted_one() -> None:
    """A modest difference, one-sided p below alpha alone, lifted above it by Holm in a family of two."""
    modest = [0.1, 0.2, -0.05, 0.15, 0.0, 0.1, 0.05, -0.1, 0.2, 0.1]
    values = {"mine/hybrid": {"ndcg_at_10": modest, "mrr_at_10": modest},
              "base/hybrid": {"ndcg_at_10": [0.0] * 10, "mrr_at_10": [0.0] * 10}}
    [family] = hypotheses(_runs(_declaration(sided="one"), _declaration(sided="one", metric="mrr_at_10")), _arms(),
                          "heldout")
    drawn = paired_stats.sample(5, len(modest), 1000, PERMUTATIONS)
    first, second = family_results(family, values, drawn, PERMUTATIONS)
    assert first is not None and second is not None
    assert first["p_value"] < 0.05 <= first["holm_p_value"] == 2 * first["p_value"]
    assert not first["significant"] and not first["supported"] and not second["supported"]


def test_a_record_frozen_before_families_is_a_family_of_one() -> None:
    family, [found] = _results(_declaration(), single=True)
    assert (family.field, family.alpha, family.members[0].declaration["sided"]) == ("hypothesis", 0.01, "two")
    assert found is not None and found["alpha"] == 0.01 and found["sided"] == "two"
    assert found["p_value"] == found["holm_p_value"] == difference(A, B, _drawn(), PERMUTATIONS)["p_value"]


def test_a_significant_difference_against_the_declared_direction_is_not_supported() -> None:
    [found] = _results(_declaration(direction="a_less"))[1]
    assert found is not None
    assert found["significant"] and not found["in_declared_direction"] and not found["supported"]
    [greater] = _results(_declaration())[1]
    assert greater is not None and greater["supported"]


def _document(change_member: dict[str, Any], status: str) -> tuple[dict[str, Any], list[Family]]:
    declared = hypotheses(_runs(_declaration()), _arms(), "heldout")
    entry = expected_entry(declared[0], _values(), _drawn(), PERMUTATIONS)
    entry["members"][0].update(change_member)
    document = {"procedure": {"permutations": PERMUTATIONS}, "hypotheses": [entry],
                "comparisons": [{"a": "mine/hybrid", "b": "base/hybrid", "status": status}]}
    return document, declared


def test_the_statement_as_recomputed_passes() -> None:
    document, declared = _document({}, "confirmatory")
    assert _problems(document, declared, _values(), _drawn()) == []


def test_a_confirmatory_pair_stated_exploratory_is_refused() -> None:
    document, declared = _document({}, "exploratory")
    assert _problems(document, declared, _values(), _drawn()) == [
        "mine/hybrid - base/hybrid is exploratory, not confirmatory"]


def test_a_hypothesis_stated_with_another_reason_is_refused() -> None:
    document, declared = _document({"reason": "declared before anything was seen"}, "confirmatory")
    [problem] = _problems(document, declared, _values(), _drawn())
    assert problem.startswith('mine\'s hypotheses, member 1 ("hybrid > hybrid"), states other reason'), problem


@pytest.mark.parametrize(("field", "forged"), [
    ("p_value", 0.5), ("holm_p_value", 0.5), ("sided", "one"), ("alpha", 0.1), ("supported", False),
    ("test_ran", "one-sided paired randomization test, H1: mine/hybrid > base/hybrid")])
def test_a_forged_result_is_refused(field: str, forged: Any) -> None:
    document, declared = _document({}, "confirmatory")
    result = document["hypotheses"][0]["members"][0]["result"]
    assert result[field] != forged
    result[field] = forged
    [problem] = _problems(document, declared, _values(), _drawn())
    assert "states other result" in problem, problem


def test_a_forged_family_alpha_is_refused() -> None:
    document, declared = _document({}, "confirmatory")
    document["hypotheses"][0]["alpha"] = 0.1
    [problem] = _problems(document, declared, _values(), _drawn())
    assert problem.startswith("mine's hypotheses state other alpha"), problem
