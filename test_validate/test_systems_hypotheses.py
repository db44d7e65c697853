"""The validator's reading of a hypothesis declared at a freeze, on runs made up in memory: when it is confirmatory
(held-out only, both arms started after the declaration, no look at or before it), the orientation of its pair, the
declared test's result, and what `systems.hypothesis` refuses in a comparison's statement of it."""

from pathlib import Path
from typing import Any

import pytest

from harness.validator.comparison import paired_stats
from harness.validator.comparison.comparison_inputs import Input
from harness.validator.comparison.comparison_stats import difference
from harness.validator.comparison.systems_hypothesis import _problems, expected_entry, result
from harness.validator.comparison.systems_inputs import Run
from harness.validator.comparison.systems_pairs import CONFIRMATORY_REASON, HELD_OUT_ONLY, expected_pairs, hypotheses

DECLARED_AT = "2026-01-01T00:00:10Z"
AFTER = "2026-01-01T00:00:20Z"
PERMUTATIONS = 10000
A = [0.9, 0.8, 1.0, 0.95, 0.85, 0.9, 1.0, 0.8]  # well above B on every query: significant, a greater
B = [0.1, 0.0, 0.2, 0.05, 0.0, 0.1, 0.3, 0.0]


def _declaration(**change: Any) -> dict[str, Any]:
    return {"a": {"mode": "hybrid"}, "b": {"mode": "hybrid", "freeze_sha256": "sha256:base"}, "metric": "ndcg_at_10",
            "test": "randomization", "alpha": 0.05, "direction": "a_greater", **change}


def _runs(declaration: dict[str, Any], declaring_first: bool = False) -> list[Run]:
    base = Run({"name": "base", "freeze": {"freeze_sha256": "sha256:base"}, "modes": ["hybrid"], "mode_choice": None},
               Path("base"), {"freeze_sha256": "sha256:base", "created_at": "2026-01-01T00:00:00Z"})
    mine = Run({"name": "mine", "freeze": {"freeze_sha256": "sha256:mine"}, "modes": ["hybrid"], "mode_choice": None},
               Path("mine"), {"freeze_sha256": "sha256:mine", "created_at": DECLARED_AT, "hypothesis": declaration})
    return [mine, base] if declaring_first else [base, mine]


def _arm(mode: str, started: str, looks: list[str]) -> Input:
    receipt = {"run": {"started_at": started}, "heldout_looks": {
        "dataset": {"name": "tiny-test"}, "record_id": "record", "earlier_looks_at": looks}}
    return Input(mode, Path("rows"), Path("aggregate"), {"receipt": receipt})


def _arms(mine_started: str = AFTER, looks: tuple[str, ...] = ()) -> dict[str, Input]:
    return {"base/hybrid": _arm("hybrid", AFTER, list(looks)), "mine/hybrid": _arm("hybrid", mine_started, list(looks))}


def test_a_hypothesis_tested_as_declared_is_confirmatory() -> None:
    [read] = hypotheses(_runs(_declaration()), _arms(), "heldout")
    assert (read.status, read.reason) == ("confirmatory", CONFIRMATORY_REASON)
    assert read.pair == ("mine/hybrid", "base/hybrid")


@pytest.mark.parametrize("split", ["all", "calibration"])
def test_a_hypothesis_is_confirmatory_on_the_heldout_split_only(split: str) -> None:
    """The all-query split holds the calibration queries the configuration was chosen on."""
    [read] = hypotheses(_runs(_declaration()), _arms(), split)
    assert (read.status, read.reason) == ("exploratory", HELD_OUT_ONLY)


def test_an_arm_started_at_the_declaration_is_not_after_it() -> None:
    [read] = hypotheses(_runs(_declaration()), _arms(mine_started=DECLARED_AT), "heldout")
    assert read.status == "exploratory" and read.reason.startswith(f"mine/hybrid started at {DECLARED_AT}, not after")


def test_a_look_recorded_at_the_declaration_counts_as_earlier() -> None:
    [read] = hypotheses(_runs(_declaration()), _arms(looks=(DECLARED_AT,)), "heldout")
    assert read.status == "exploratory" and read.reason.startswith("1 earlier held-out look at tiny-test")
    [later] = hypotheses(_runs(_declaration()), _arms(looks=(AFTER,)), "heldout")
    assert later.status == "confirmatory"


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


def test_the_declared_test_gives_the_p_value() -> None:
    mine = difference(A, B, _drawn(), PERMUTATIONS)
    assert mine["p_value"] != mine["t_p"]
    for test, key in (("randomization", "p_value"), ("t_test", "t_p")):
        [read] = hypotheses(_runs(_declaration(test=test)), _arms(), "heldout")
        assert result(read, _values(), _drawn(), PERMUTATIONS)["p_value"] == mine[key]


def test_a_significant_difference_against_the_declared_direction_is_not_supported() -> None:
    [read] = hypotheses(_runs(_declaration(direction="a_less")), _arms(), "heldout")
    found = result(read, _values(), _drawn(), PERMUTATIONS)
    assert found["significant"] and not found["in_declared_direction"] and not found["supported"]
    [greater] = hypotheses(_runs(_declaration()), _arms(), "heldout")
    assert result(greater, _values(), _drawn(), PERMUTATIONS)["supported"]


def _document(change_entry: dict[str, Any], status: str) -> tuple[dict[str, Any], list[Any]]:
    declared = hypotheses(_runs(_declaration()), _arms(), "heldout")
    entry = {**expected_entry(declared[0], _values(), _drawn(), PERMUTATIONS), **change_entry}
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
    assert problem.startswith("mine's hypothesis states other reason"), problem
