"""A comparison's statistics recomputed from the per-query metrics the validator itself derived from the rows.

The procedure a comparison may state is this one, word for word: an artifact describing another procedure (or
describing this one in other words) is refused, since the numbers could not be checked against what it says.
"""

from typing import Any

from ..core.report import Report
from . import paired_stats

PROCEDURE_ID = "scifact-paired-pcg64-v1"
MIN_RESAMPLES, MIN_PERMUTATIONS = 1000, 10000
TOLERANCE = 1e-9
TIE_MARGIN = 1e-9
FIXED: dict[str, object] = {"id": PROCEDURE_ID, "confidence": 0.95, "alpha": 0.05, "tie_margin": TIE_MARGIN}
DESCRIPTIONS = {
    "random_generator": "numpy.random.PCG64(seed), read through random_raw(): unsigned 64-bit outputs, in order",
    "draw_order": "first resamples x n outputs, row-major (resample r, position i), each taken mod n as the index "
                  "of a query (bias below n / 2^64); then permutations x n outputs, row-major (permutation r, query "
                  "i), each giving the sign -1 when its top bit (bit 63) is set, else +1. One set of draws serves "
                  "every mode, pair and metric of the comparison.",
    "bootstrap": "paired percentile bootstrap: each resample draws n queries with replacement (the indices above) and "
                 "takes the mean of a mode's values, or of a pair's differences, over them; the 95% interval is the "
                 "0.025 and 0.975 quantiles of the resample means, linear interpolation between order statistics "
                 "(position (R - 1) q of the sorted means, counted from 0)",
    "randomization_test": "two-sided paired randomization (sign-flip) test of a mean difference of zero: with "
                          "differences d_i = a_i - b_i and S = sum of d_i, each permutation's S* = sum of s_i d_i; b "
                          "counts permutations with |S*| >= |S| - 1e-9 (the margin keeps ties in exact arithmetic "
                          "ties whatever the summation order); p = (b + 1) / (permutations + 1)",
    "t_test": "paired t-test: t = mean(d) / (sd(d) / sqrt(n)), sd with n - 1 degrees of freedom, two-sided p from "
              "Student's t with n - 1 degrees of freedom; null (undefined) when n < 2 or sd(d) = 0",
    "holm": "Holm's step-down adjustment of the randomization p-values: sort the family's m p-values ascending "
            "(ties by pair order), adjusted p_(j) = max over i <= j of min(1, (m - i + 1) p_(i)); a difference is "
            "significant when its adjusted p < alpha = 0.05",
    "holm_family": "for each metric separately, the pairs of modes this artifact compares on this split (all three "
                   "pairs, or each mode against the baseline); nDCG@10 is the primary metric, the others secondary",
    "effect_size": "standardized mean difference of paired observations (Cohen's d_z): mean(d) / sd(d), sd with n - 1 "
                   "degrees of freedom; null when n < 2 or sd(d) = 0",
    "wins_ties_losses": "over queries: a wins when d_i > 0, ties when d_i = 0 (the metric values are equal), loses "
                        "when d_i < 0",
    "means": "a mode's mean is math.fsum of the per-query values / n, the aggregate's rule; a pair's mean difference "
             "is math.fsum of d_i / n",
}

Values = dict[str, dict[str, list[float]]]  # mode (or arm) -> metric -> per-query values, in row order
Mismatch = tuple[str, str, Any, Any]  # what (a mode, a pair), metric, the validator's value, the stated one


def procedure_problems(procedure: dict[str, Any], descriptions: dict[str, str] = DESCRIPTIONS) -> dict[str, Any]:
    """What the stated procedure says other than `descriptions`, the fixed terms and the minimum counts."""
    wrong = {key: procedure.get(key) for key, value in FIXED.items() if procedure.get(key) != value}
    if procedure.get("bootstrap_resamples", 0) < MIN_RESAMPLES or procedure.get("permutations", 0) < MIN_PERMUTATIONS:
        wrong["counts"] = [procedure.get("bootstrap_resamples"), procedure.get("permutations")]
    changed = sorted(k for k in descriptions if procedure.get("descriptions", {}).get(k) != descriptions[k])
    if changed:
        wrong["descriptions"] = changed
    return wrong


def check_procedure(procedure: dict[str, Any], report: Report) -> bool:
    wrong = procedure_problems(procedure)
    return report.expect("comparison.procedure", not wrong, f"the stated procedure is {PROCEDURE_ID}, in its own "
                         f"words, with at least {MIN_RESAMPLES} resamples and {MIN_PERMUTATIONS} permutations",
                         "the validator's procedure", wrong)


def close(expected: float | None, found: Any) -> bool:
    if expected is None or found is None:
        return expected is None and found is None
    return isinstance(found, int | float) and abs(expected - found) <= TOLERANCE


def _pairs(baseline: str | None, modes: list[str]) -> list[list[str]]:
    if baseline is None:
        return [[modes[j], modes[i]] for j in range(1, len(modes)) for i in range(j)]
    return [[mode, baseline] for mode in modes if mode != baseline]


def mean_problems(values: Values, stated: dict[str, Any], aggregates: dict[str, dict[str, Any]],
                  drawn: paired_stats.Sample) -> list[Mismatch]:
    """Each mean (equal to its aggregate's) and bootstrap interval in `stated` (key -> metric -> interval) that does
    not recompute from `values`."""
    wrong = []
    for key, metrics in values.items():
        for metric, column in metrics.items():
            interval = stated[key][metric]
            mean = paired_stats.exact_mean(column)
            low, high = paired_stats.interval(column, drawn)
            stated_mean = aggregates[key].get("metrics", {}).get(metric,
                                                                (aggregates[key].get("measures") or {}).get(
                                                                    "means", {}).get(metric))
            if not (close(mean, interval["mean"]) and close(mean, stated_mean)
                    and close(low, interval["ci_low"]) and close(high, interval["ci_high"])):
                stated_values = [interval["mean"], interval["ci_low"], interval["ci_high"]]
                wrong.append((key, metric, [mean, low, high], stated_values))
    return wrong


def check_means(document: dict[str, Any], values: Values, drawn: paired_stats.Sample,
                aggregates: dict[str, dict[str, Any]], report: Report) -> None:
    wrong = mean_problems(values, document["modes"], aggregates, drawn)
    report.expect("comparison.means", not wrong, "every mode's mean (equal to its aggregate's) and 95% bootstrap "
                  "interval recompute from the rows", [w[2] for w in wrong[:3]], [(*w[:2], w[3]) for w in wrong[:3]])


def difference(a: list[float], b: list[float], drawn: paired_stats.Sample, permutations: int) -> dict[str, Any]:
    """The validator's own statistics of the paired differences a - b."""
    d = [x - y for x, y in zip(a, b, strict=True)]
    low, high = paired_stats.interval(d, drawn)
    extreme = paired_stats.sign_flip(d, drawn, TIE_MARGIN)
    t, t_p = paired_stats.t_test(d)
    sd = paired_stats.standard_deviation(d)
    return {"mean_difference": paired_stats.exact_mean(d), "ci_low": low, "ci_high": high, "extreme_count": extreme,
            "p_value": (extreme + 1) / (permutations + 1), "statistic": t, "t_p": t_p,
            "effect_size": None if not sd else paired_stats.exact_mean(d) / sd,
            "wtl": [sum(x > 0 for x in d), sum(x == 0 for x in d), sum(x < 0 for x in d)]}


def _matches(mine: dict[str, Any], stated: dict[str, Any]) -> bool:
    return (all(close(mine[k], stated[k]) for k in ("mean_difference", "ci_low", "ci_high", "effect_size"))
            and mine["extreme_count"] == stated["randomization"]["extreme_count"]
            and close(mine["p_value"], stated["randomization"]["p_value"])
            and close(mine["statistic"], stated["t_test"]["statistic"])
            and close(mine["t_p"], stated["t_test"]["p_value"])
            and mine["wtl"] == [stated["wins"], stated["ties"], stated["losses"]])


def difference_problems(document: dict[str, Any], values: Values,
                        drawn: paired_stats.Sample) -> tuple[list[Mismatch], dict[str, list[float]]]:
    """Every stated pair's statistics that do not recompute, and each metric's family of randomization p-values (the
    validator's own), in the order of `document["comparisons"]`, whose labels are keys of `values`."""
    permutations = document["procedure"]["permutations"]
    wrong: list[Mismatch] = []
    p_values: dict[str, list[float]] = {}
    for comparison in document["comparisons"]:
        for metric in document["metrics"]:
            mine = difference(values[comparison["a"]][metric], values[comparison["b"]][metric], drawn, permutations)
            stated = comparison["metrics"][metric]
            p_values.setdefault(metric, []).append(mine["p_value"])
            if not _matches(mine, stated) or stated["t_test"]["df"] != document["query_count"] - 1:
                wrong.append((f"{comparison['a']} - {comparison['b']}", metric, mine, stated))
    return wrong, p_values


def check_statistics(document: dict[str, Any], values: Values, drawn: paired_stats.Sample, report: Report) -> None:
    modes = list(values)
    expected_pairs = _pairs(document["baseline"], modes)
    stated_pairs = [[c["a"], c["b"]] for c in document["comparisons"]]
    if expected_pairs != stated_pairs:
        report.fail("comparison.statistics", "the comparison holds exactly the pairs its baseline implies, in order",
                    expected_pairs, stated_pairs)
        return
    wrong, p_values = difference_problems(document, values, drawn)
    report.expect("comparison.statistics", not wrong, "every difference, bootstrap interval, randomization count and "
                  "p-value, t-test, effect size and win/tie/loss count recomputes from the rows",
                  [w[2] for w in wrong[:2]], [(*w[:2], w[3]) for w in wrong[:2]])
    check_holm(document, p_values, report)


def holm_problems(document: dict[str, Any], p_values: dict[str, list[float]]) -> list[Mismatch]:
    """Each Holm-adjusted p-value or significance call of `document["comparisons"]` that does not recompute."""
    alpha = document["procedure"]["alpha"]
    wrong = []
    for metric, family in p_values.items():
        for comparison, adjusted in zip(document["comparisons"], paired_stats.holm(family), strict=True):
            stated = comparison["metrics"][metric]
            if not close(adjusted, stated["holm_p_value"]) or stated["significant_after_holm"] != (adjusted < alpha):
                wrong.append((f"{comparison['a']} - {comparison['b']}", metric, adjusted,
                              [stated["holm_p_value"], stated["significant_after_holm"]]))
    return wrong


def check_holm(document: dict[str, Any], p_values: dict[str, list[float]], report: Report) -> None:
    wrong = holm_problems(document, p_values)
    report.expect("comparison.holm", not wrong, "Holm-adjusted p-values over each metric's family of pairs and the "
                  "significance calls at alpha recompute", [w[2] for w in wrong[:3]],
                  [(*w[:2], w[3]) for w in wrong[:3]])
