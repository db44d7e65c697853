"""The validator's rules for a comparison's statistics, on numbers made here: the stated procedure's minimum counts,
and a pair's statement matching the validator's recomputation in every figure, its wins, ties and losses among them."""

from typing import Any

import pytest

from harness.validator.comparison import paired_stats
from harness.validator.comparison.comparison_stats import (
    DESCRIPTIONS,
    FIXED,
    MIN_PERMUTATIONS,
    MIN_RESAMPLES,
    _matches,
    difference,
    procedure_problems,
)

A = [0.9, 0.5, 1.0, 0.2, 0.85, 0.4, 1.0, 0.8]
B = [0.1, 0.5, 0.2, 0.6, 0.0, 0.4, 0.3, 0.0]


def _procedure(resamples: int = MIN_RESAMPLES, permutations: int = MIN_PERMUTATIONS) -> dict[str, Any]:
    return {**FIXED, "seed": 7, "bootstrap_resamples": resamples, "permutations": permutations,
            "descriptions": dict(DESCRIPTIONS)}


def test_the_validators_procedure_passes() -> None:
    assert procedure_problems(_procedure()) == {}


@pytest.mark.parametrize(("resamples", "permutations"), [(MIN_RESAMPLES - 1, MIN_PERMUTATIONS),
                                                         (MIN_RESAMPLES, MIN_PERMUTATIONS - 1)])
def test_fewer_draws_than_the_minimum_are_refused(resamples: int, permutations: int) -> None:
    assert procedure_problems(_procedure(resamples, permutations)) == {"counts": [resamples, permutations]}


def _stated(mine: dict[str, Any]) -> dict[str, Any]:
    """A pair's statement as an artifact words it, from the validator's own figures."""
    wins, ties, losses = mine["wtl"]
    return {**{key: mine[key] for key in ("mean_difference", "ci_low", "ci_high", "effect_size")},
            "randomization": {"extreme_count": mine["extreme_count"], "p_value": mine["p_value"]},
            "t_test": {"statistic": mine["statistic"], "p_value": mine["t_p"]},
            "wins": wins, "ties": ties, "losses": losses}


def test_a_pairs_statement_must_match_in_every_figure() -> None:
    drawn = paired_stats.sample(7, len(A), MIN_RESAMPLES, MIN_PERMUTATIONS)
    mine = difference(A, B, drawn, MIN_PERMUTATIONS)
    assert mine["wtl"] == [5, 2, 1]
    stated = _stated(mine)
    assert _matches(mine, stated)
    for change in ({"wins": 4, "ties": 3}, {"losses": 2, "wins": 4}, {"ties": 1, "losses": 2}):
        assert not _matches(mine, {**stated, **change}), change
    assert not _matches(mine, {**stated, "mean_difference": mine["mean_difference"] + 1e-6})
