"""What decides each confirmatory hypothesis of a family: its declared test's p-value (one-sided in the declared
direction, or two-sided, as declared) on its pair's differences, Holm's step-down adjustment over the family's
declared members, and the reading at the family-wise alpha in the declared direction (docs/comparing-systems.md).

A member that is not confirmatory here, or whose p-value is undefined, counts as p = 1 in the adjustment: the family
keeps the size it was declared with, so leaving an arm out of a comparison never makes the adjustment milder.
"""

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from harness.evaluation.comparison import paired_statistics as stats
from harness.evaluation.comparison.hypotheses import FamilyReading, Reading
from harness.evaluation.gates.hypothesis_terms import ADJUSTMENT

PROCEDURES = {
    "one_sided_randomization_test": "a hypothesis declared one-sided and tested by randomization is tested in its "
                                    "direction with the same sign flips: for H1 a > b, b counts permutations with "
                                    "S* >= S - 1e-9; for H1 a < b, with S* <= S + 1e-9; p = (b + 1) / (permutations "
                                    "+ 1)",
    "one_sided_t_test": "a hypothesis declared one-sided and tested by the t-test: t as above, p = P(T >= t) for H1 "
                        "a > b, P(T <= t) for H1 a < b, Student's t with n - 1 degrees of freedom; null when t is",
    "hypothesis_family": "the hypotheses one freeze record declares are one family, decided by Holm's step-down "
                         "adjustment at the family's declared alpha: each member's p is its declared test's p-value "
                         "on its declared metric and pair, one- or two-sided as declared; a member not confirmatory "
                         "here, or whose p is undefined, counts as p = 1, so the family keeps its declared size m; "
                         "sort the m p-values ascending (ties by declaration order), adjusted p_(j) = max over i <= j "
                         "of min(1, (m - i + 1) p_(i)); a member is supported when its adjusted p < alpha and its "
                         "mean difference lies in the declared direction (either, for A != B)",
}
TEST_NAMES = {"randomization": "paired randomization test", "t_test": "paired t-test"}
ONE_SIDED = {"a_greater": ">", "a_less": "<"}


def test_ran(declaration: dict[str, Any], a: str, b: str) -> str:
    """Which test decides, in words: "one-sided paired randomization test, H1: A > B"."""
    relation = ONE_SIDED[declaration["direction"]] if declaration["sided"] == "one" else "!="
    return f"{declaration['sided']}-sided {TEST_NAMES[declaration['test']]}, H1: {a} {relation} {b}"


def declared_p(declaration: dict[str, Any], differences: Sequence[float], signs: NDArray[np.float64]) -> float | None:
    """The declared test's unadjusted p-value, one- or two-sided as declared; None when the t-test is undefined."""
    greater = declaration["direction"] == "a_greater"
    one_sided = declaration["sided"] == "one"
    if declaration["test"] == "randomization":
        if one_sided:
            return stats.one_sided_randomization_test(differences, signs, greater=greater)[1]
        return stats.randomization_test(differences, signs)[1]
    return stats.one_sided_t_test(differences, greater=greater) if one_sided else stats.t_test(differences)[1]


def _result(reading: Reading, differences: Sequence[float], p: float | None, adjusted: float,
            alpha: float) -> dict[str, Any]:
    declared = reading.declaration
    assert reading.pair is not None
    difference = stats.mean(differences)
    holm_p = None if p is None else adjusted
    significant = holm_p is not None and holm_p < alpha
    direction = {"a_greater": difference > 0, "a_less": difference < 0, "two_sided": True}[declared["direction"]]
    return {"metric": declared["metric"], "test": declared["test"], "sided": declared["sided"],
            "test_ran": test_ran(declared, reading.pair[0].label, reading.pair[1].label),
            "mean_difference": difference, "p_value": p, "holm_p_value": holm_p, "alpha": alpha,
            "significant": significant, "in_declared_direction": direction, "supported": significant and direction}


def family_record(family: FamilyReading, differences_of: Callable[[Reading], list[float]],
                  signs: NDArray[np.float64]) -> dict[str, Any]:
    """The comparison's entry for one declaring run's family: each member with its status, reason, pair and, when
    confirmatory, its result, Holm-adjusted over the family."""
    assert family.declared_by.freeze is not None
    confirmatory = [member.status == "confirmatory" for member in family.members]
    differences = [differences_of(member) if tested else [] for member, tested in zip(family.members, confirmatory,
                                                                                       strict=True)]
    p_values = [declared_p(member.declaration, found, signs) if tested else None
                for member, found, tested in zip(family.members, differences, confirmatory, strict=True)]
    adjusted = stats.holm([1.0 if p is None else p for p in p_values])
    members = []
    for member, tested, found, p, holm_p in zip(family.members, confirmatory, differences, p_values, adjusted,
                                                 strict=True):
        pair = None if member.pair is None else {"a": member.pair[0].label, "b": member.pair[1].label}
        members.append({"declaration": member.declaration, "status": member.status, "reason": member.reason,
                        "pair": pair,
                        "result": _result(member, found, p, holm_p, family.alpha) if tested else None})
    return {"declared_by": family.declared_by.spec.name,
            "freeze_sha256": family.declared_by.freeze.record["freeze_sha256"], "freeze_field": family.field,
            "alpha": family.alpha, "adjustment": ADJUSTMENT, "members": members}
