"""The comparison's reading of a hypothesis declared at a freeze, on runs made up in memory: confirmatory only on the
held-out split, with both arms started after the declaration and no look at or before it; its pair oriented as
declared; the declared test's p-value; and an all-query run, like a held-out one, refused without its freeze."""

from pathlib import Path
from typing import Any

import pytest

from harness.evaluation.comparison.experiment import experiment_problems
from harness.evaluation.comparison.hypotheses import CONFIRMATORY, read_hypotheses, result_of, with_hypothesis_pairs
from harness.evaluation.comparison.inputs import ModeInput
from harness.evaluation.comparison.pairing import arm_pairs
from harness.evaluation.comparison.run_specs import RunSpec
from harness.evaluation.comparison.systems_inputs import RunInput, systems_problems
from harness.evaluation.gates.split_modes import FreezeFile

DECLARED_AT = "2026-01-01T00:00:10Z"
AFTER = "2026-01-01T00:00:20Z"


def _input(run: str, mode: str, started: str, looks: tuple[str, ...], freeze: str | None) -> ModeInput:
    receipt = {"run": {"started_at": started, "run_id": f"{run}/{mode}"}, "corpus": {"fixture_sha256": "sha256:f"},
               "system": {"name": run}, "store": {"store_sha256": f"sha256:{run}"},
               "freeze": None if freeze is None else {"sha256": freeze},
               "heldout_looks": {"dataset": {"name": "tiny-test"}, "record_id": "record",
                                 "earlier_looks_at": list(looks)}}
    rows = [{"query_id": "q1", "qrels": {"d1": 1}}]
    return ModeInput(mode, Path(f"{run}-{mode}.aggregate.json"), {"receipt": receipt}, f"sha256:{run}-{mode}",
                     Path("rows"), rows, "sha256:r", b"", b"")


def _run(name: str, started: str = AFTER, looks: tuple[str, ...] = (), hypothesis: dict[str, Any] | None = None,
         frozen: bool = True) -> RunInput:
    record = {"freeze_sha256": f"sha256:{name}", "created_at": DECLARED_AT, "hypothesis": hypothesis}
    freeze = f"sha256:{name}" if frozen else None
    return RunInput(RunSpec(name, Path(name), None), [_input(name, "hybrid", started, looks, freeze)],
                    FreezeFile(b"", record) if frozen else None)


def _declaration(**change: Any) -> dict[str, Any]:
    return {"a": {"mode": "hybrid"}, "b": {"mode": "hybrid", "freeze_sha256": "sha256:base"}, "metric": "ndcg_at_10",
            "test": "randomization", "alpha": 0.05, "direction": "a_greater", **change}


def _read(split: str = "heldout", started: str = AFTER, looks: tuple[str, ...] = (),
          **change: Any) -> tuple[str, str]:
    runs = [_run("base", looks=looks), _run("mine", started, looks, _declaration(**change))]
    [reading] = read_hypotheses(runs, split)
    return reading.status, reading.reason


def test_a_hypothesis_tested_as_declared_is_confirmatory() -> None:
    assert _read() == ("confirmatory", CONFIRMATORY)


@pytest.mark.parametrize("split", ["all", "calibration"])
def test_a_hypothesis_is_confirmatory_on_the_heldout_split_only(split: str) -> None:
    assert _read(split) == ("exploratory", "a hypothesis is tested on the held-out split only")


def test_an_arm_started_at_the_declaration_is_not_after_it() -> None:
    status, reason = _read(started=DECLARED_AT)
    assert status == "exploratory" and reason.startswith(f"mine/hybrid started at {DECLARED_AT}, not after"), reason


def test_a_look_recorded_at_the_declaration_counts_as_earlier() -> None:
    status, reason = _read(looks=(DECLARED_AT,))
    assert status == "exploratory" and reason.startswith("1 earlier held-out look at tiny-test"), reason
    assert _read(looks=(AFTER,))[0] == "confirmatory"


def test_the_declared_pair_is_oriented_as_declared() -> None:
    """The declaring run given first: the rule gives base - mine, the declaration mine - base, which takes its
    place."""
    runs = [_run("mine", hypothesis=_declaration()), _run("base")]
    pairs = arm_pairs([run.arms for run in runs], None)
    assert [(a.label, b.label) for a, b in pairs] == [("base/hybrid", "mine/hybrid")]
    oriented = with_hypothesis_pairs(pairs, read_hypotheses(runs, "heldout"))
    assert [(a.label, b.label) for a, b in oriented] == [("mine/hybrid", "base/hybrid")]


@pytest.mark.parametrize("test", ["randomization", "t_test"])
def test_the_declared_test_gives_the_p_value(test: str) -> None:
    [reading] = read_hypotheses([_run("base"), _run("mine", hypothesis=_declaration(test=test))], "heldout")
    statistics = {"ndcg_at_10": {"mean_difference": 0.2, "randomization": {"p_value": 0.03},
                                 "t_test": {"p_value": 0.07}}}
    found = result_of(reading, statistics)
    assert found["p_value"] == {"randomization": 0.03, "t_test": 0.07}[test]
    assert found["supported"] is (test == "randomization")


@pytest.mark.parametrize("split", ["heldout", "all"])
def test_a_run_of_a_heldout_or_all_query_split_needs_its_freeze(split: str) -> None:
    runs = [_run("base"), _run("mine", frozen=False)]
    assert systems_problems(runs, split) == [
        f"--run mine: its {split} receipts name no freeze, which a {split} run must have run under"]
    assert systems_problems(runs, "calibration") == []
    unfrozen = [_input("mine", mode, AFTER, (), None) for mode in ("fts_only", "hybrid")]
    assert experiment_problems(unfrozen, split) == [
        f"fts_only (mine-fts_only.aggregate.json), hybrid (mine-hybrid.aggregate.json) record no freeze, which a "
        f"{split} run must have run under"]
