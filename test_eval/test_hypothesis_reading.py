"""The comparison's reading of the hypotheses declared at a freeze, on runs made up in memory: confirmatory only on the
held-out split, with both arms started after the declaration and no look at or before it; its pair oriented as
declared; the declared test's p-value, one- or two-sided, Holm-adjusted over the family; an earlier record's single
hypothesis read as a family of one; and an all-query run, like a held-out one, refused without its freeze."""

from pathlib import Path
from typing import Any

import pytest

from harness.evaluation.comparison import paired_statistics as stats
from harness.evaluation.comparison.experiment import experiment_problems
from harness.evaluation.comparison.hypotheses import CONFIRMATORY, read_hypotheses, with_hypothesis_pairs
from harness.evaluation.comparison.hypothesis_results import family_record
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
         frozen: bool = True, members: list[dict[str, Any]] | None = None) -> RunInput:
    """A run of one hybrid arm; its freeze declares `members` as a family at alpha 0.05, or `hypothesis` the way a
    record frozen before families did."""
    record: dict[str, Any] = {"freeze_sha256": f"sha256:{name}", "created_at": DECLARED_AT}
    if hypothesis is not None:
        record["hypothesis"] = hypothesis
    if members is not None:
        record["hypotheses"] = {"alpha": 0.05, "adjustment": "holm", "members": members}
    freeze = f"sha256:{name}" if frozen else None
    return RunInput(RunSpec(name, Path(name), None), [_input(name, "hybrid", started, looks, freeze)],
                    FreezeFile(b"", record) if frozen else None)


def _declaration(**change: Any) -> dict[str, Any]:
    return {"a": {"mode": "hybrid"}, "b": {"mode": "hybrid", "freeze_sha256": "sha256:base"}, "metric": "ndcg_at_10",
            "test": "randomization", "sided": "two", "direction": "a_greater", **change}


def _read(split: str = "heldout", started: str = AFTER, looks: tuple[str, ...] = (),
          **change: Any) -> tuple[str, str]:
    runs = [_run("base", looks=looks), _run("mine", started, looks, members=[_declaration(**change)])]
    [family] = read_hypotheses(runs, split)
    [reading] = family.members
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
    runs = [_run("mine", members=[_declaration()]), _run("base")]
    pairs = arm_pairs([run.arms for run in runs], None)
    assert [(a.label, b.label) for a, b in pairs] == [("base/hybrid", "mine/hybrid")]
    oriented = with_hypothesis_pairs(pairs, read_hypotheses(runs, "heldout"))
    assert [(a.label, b.label) for a, b in oriented] == [("mine/hybrid", "base/hybrid")]


A = [0.9, 0.8, 1.0, 0.95, 0.85, 0.9, 1.0, 0.8, 0.7, 0.6]  # above B on most queries
B = [0.1, 0.0, 0.2, 0.05, 0.0, 0.1, 0.3, 0.0, 0.8, 0.7]
DIFFERENCES = [a - b for a, b in zip(A, B, strict=True)]
DRAWN = stats.draws(5, len(A), 1000, 10_000)


def _family(*members: dict[str, Any], split: str = "heldout") -> dict[str, Any]:
    """The comparison's entry for a family whose every tested member's pair differs by DIFFERENCES."""
    [family] = read_hypotheses([_run("base"), _run("mine", members=list(members))], split)
    return family_record(family, lambda member: DIFFERENCES, DRAWN.signs)


@pytest.mark.parametrize(("test", "sided", "direction"), [
    ("randomization", "two", "a_greater"), ("randomization", "one", "a_greater"), ("randomization", "one", "a_less"),
    ("t_test", "two", "two_sided"), ("t_test", "one", "a_greater"), ("t_test", "one", "a_less")])
def test_the_declared_test_gives_the_p_value(test: str, sided: str, direction: str) -> None:
    [member] = _family(_declaration(test=test, sided=sided, direction=direction))["members"]
    greater = direction == "a_greater"
    expected = {("randomization", "two"): stats.randomization_test(DIFFERENCES, DRAWN.signs)[1],
                ("randomization", "one"): stats.one_sided_randomization_test(DIFFERENCES, DRAWN.signs,
                                                                             greater=greater)[1],
                ("t_test", "two"): stats.t_test(DIFFERENCES)[1],
                ("t_test", "one"): stats.one_sided_t_test(DIFFERENCES, greater=greater)}[(test, sided)]
    result = member["result"]
    assert expected is not None and result["p_value"] == expected == result["holm_p_value"]  # a family of one
    relation = {"one": {"a_greater": ">", "a_less": "<"}.get(direction), "two": "!="}[sided]
    words = {"randomization": "paired randomization test", "t_test": "paired t-test"}[test]
    assert result["test_ran"] == f"{sided}-sided {words}, H1: mine/hybrid {relation} base/hybrid"
    assert result["supported"] is (expected < 0.05 and direction != "a_less")


def test_a_one_sided_test_against_the_data_is_not_significant() -> None:
    toward, away = (_family(_declaration(sided="one", direction=d))["members"][0]["result"]
                    for d in ("a_greater", "a_less"))
    assert toward["p_value"] < 0.05 < 0.95 < away["p_value"]
    assert toward["supported"] and not away["significant"] and not away["in_declared_direction"]


def test_the_family_is_adjusted_by_holm_over_its_declared_members() -> None:
    """Three members: two tested here with one p each, one whose baseline is not here (p = 1 in the adjustment)."""
    elsewhere = _declaration(b={"mode": "hybrid", "freeze_sha256": "sha256:elsewhere"})
    family = _family(_declaration(sided="one"), _declaration(metric="mrr_at_10", test="t_test"), elsewhere)
    one, two, absent = family["members"]
    assert (absent["status"], absent["result"]) == ("exploratory", None)
    p_t, p_sign_flip = two["result"]["p_value"], one["result"]["p_value"]
    assert p_t < p_sign_flip < 0.05 / 2
    # by hand, m = 3: the smaller p times 3, the next times 2 (raised to the running maximum), the absent one 1
    assert two["result"]["holm_p_value"] == pytest.approx(3 * p_t, abs=1e-15)
    assert one["result"]["holm_p_value"] == pytest.approx(max(3 * p_t, 2 * p_sign_flip), abs=1e-15)
    assert one["result"]["supported"] and two["result"]["supported"]
    assert (family["alpha"], family["adjustment"], family["freeze_field"]) == (0.05, "holm", "hypotheses")


def test_the_adjusted_p_decides_not_the_unadjusted_one() -> None:
    """A modest difference: one-sided p 0.028 is below alpha alone (two-sided it is not); in a family of two, Holm lifts
    it above alpha, and neither member is supported."""
    modest = [0.1, 0.2, -0.05, 0.15, 0.0, 0.1, 0.05, -0.1, 0.2, 0.1]

    def results(*members: dict[str, Any]) -> list[dict[str, Any]]:
        [family] = read_hypotheses([_run("base"), _run("mine", members=list(members))], "heldout")
        return [m["result"] for m in family_record(family, lambda member: modest, DRAWN.signs)["members"]]
    [alone] = results(_declaration(sided="one"))
    [two_sided] = results(_declaration())
    assert alone["p_value"] < 0.05 < two_sided["p_value"]
    assert alone["supported"] and not two_sided["supported"]
    first, second = results(_declaration(sided="one"), _declaration(sided="one", metric="mrr_at_10"))
    assert first["p_value"] == alone["p_value"] < 0.05 <= first["holm_p_value"] == 2 * alone["p_value"]
    assert not first["significant"] and not first["supported"] and not second["supported"]


def test_an_undefined_p_counts_as_one_and_decides_nothing() -> None:
    [family] = read_hypotheses([_run("base"), _run("mine", members=[_declaration(test="t_test"),
                                                                    _declaration(metric="mrr_at_10")])], "heldout")
    document = family_record(family, lambda member: [0.25] * 10 if member.declaration["test"] == "t_test"
                             else DIFFERENCES, DRAWN.signs)
    undefined, defined = (member["result"] for member in document["members"])
    assert (undefined["p_value"], undefined["holm_p_value"], undefined["supported"]) == (None, None, False)
    assert defined["holm_p_value"] == min(1.0, 2 * defined["p_value"])  # m = 2, the undefined one at p = 1


def test_a_record_frozen_before_families_is_read_as_a_family_of_one() -> None:
    single = {key: value for key, value in _declaration().items() if key != "sided"}
    [family] = read_hypotheses([_run("base"), _run("mine", hypothesis={**single, "alpha": 0.01})], "heldout")
    assert (family.field, family.alpha) == ("hypothesis", 0.01)
    [reading] = family.members
    assert reading.declaration == {**single, "sided": "two"}  # tested two-sided, as it was declared
    assert reading.status == "confirmatory"
    result = family_record(family, lambda member: DIFFERENCES, DRAWN.signs)["members"][0]["result"]
    assert result["p_value"] == stats.randomization_test(DIFFERENCES, DRAWN.signs)[1] == result["holm_p_value"]
    assert result["alpha"] == 0.01


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
