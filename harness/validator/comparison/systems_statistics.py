"""systems.statistics: a comparison between systems states the validator's procedure in its words (the family of
Holm's adjustment being the pairs of arms), each arm's means and intervals, exactly the pairs the rule gives in its
order, and every pair's statistics and Holm-adjusted p-values, all recomputed here with the validator's own code from
the per-query values it derived from the rows. One set of draws serves every arm, pair and metric."""

from typing import Any

from ..core.report import Report
from . import paired_stats
from .comparison_inputs import Input, Values
from .comparison_stats import DESCRIPTIONS, difference_problems, holm_problems, mean_problems, procedure_problems
from .systems_pairs import Family, expected_pairs

HOLM_FAMILY = ("for each metric separately, every pair of arms this artifact compares on this split (the pairs the "
               "pairing rule gives and the pair of any declared hypothesis), two-sided: an exploratory reading that "
               "decides no hypothesis (hypothesis_family does); nDCG@10 is the primary metric, the others secondary")
HYPOTHESIS_DESCRIPTIONS = {
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
SYSTEMS_DESCRIPTIONS = {**DESCRIPTIONS, "holm_family": HOLM_FAMILY, **HYPOTHESIS_DESCRIPTIONS}


def draws(document: dict[str, Any]) -> paired_stats.Sample:
    procedure = document["procedure"]
    return paired_stats.sample(procedure["seed"], document["query_count"], procedure["bootstrap_resamples"],
                               procedure["permutations"])


def _problems(document: dict[str, Any], values: Values, arms: dict[str, Input], declared: list[Family],
              drawn: paired_stats.Sample) -> list[str]:
    problems = []
    procedure = procedure_problems(document["procedure"], SYSTEMS_DESCRIPTIONS)
    if procedure:
        problems.append(f"the stated procedure differs from the validator's in {procedure}")
    names = [run["name"] for run in document["runs"]]
    if document["baseline"] is not None and document["baseline"] not in names:
        problems.append(f"the baseline {document['baseline']} is none of the runs {names}")
    if set(document["arms"]) != set(values):
        problems.append(f"means are stated for {sorted(document['arms'])}, the arms are {sorted(values)}")
    else:
        aggregates = {label: arm.aggregate for label, arm in arms.items()}
        problems += [f"{label} {metric}: recomputed {mine}, stated {stated}"
                     for label, metric, mine, stated in mean_problems(values, document["arms"], aggregates, drawn)]
    expected = [list(pair) for pair in expected_pairs(document["runs"], document["baseline"], declared)]
    stated_pairs = [[comparison["a"], comparison["b"]] for comparison in document["comparisons"]]
    if stated_pairs != expected:
        return [*problems, f"the pairs are {stated_pairs}; the rule gives {expected}"]
    wrong, p_values = difference_problems(document, values, drawn)
    problems += [f"{pair} {metric}: recomputed {mine}, stated {stated}" for pair, metric, mine, stated in wrong]
    problems += [f"{pair} {metric}: Holm-adjusted p {mine}, stated {stated}"
                 for pair, metric, mine, stated in holm_problems(document, p_values)]
    return problems


def check_systems_statistics(document: dict[str, Any], values: Values, arms: dict[str, Input],
                             declared: list[Family], drawn: paired_stats.Sample, report: Report) -> None:
    problems = _problems(document, values, arms, declared, drawn)
    report.expect("systems.statistics", not problems, "the procedure is the validator's; every arm's means and "
                  "intervals, the pairs the rule gives in its order, every pair's statistics and Holm's adjustment "
                  "recompute from the rows", "recomputed statistics", problems[:3])
