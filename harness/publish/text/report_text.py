"""Words and number formats shared by the HTML report, its Markdown version and CLAIMS.md."""

from typing import Any

from harness.publish.text.dataset_words import long_title

METRIC_LABELS = {"ndcg_at_10": "nDCG@10", "recall_at_1": "Recall@1", "recall_at_5": "Recall@5",
                 "recall_at_10": "Recall@10", "mrr_at_10": "MRR@10", "map_at_10": "MAP@10",
                 "success_at_1": "Success@1", "success_at_5": "Success@5", "success_at_10": "Success@10"}
SPLIT_LABELS = {"calibration": "calibration", "heldout": "held-out", "all": "all queries"}


def metric_label(metric: str) -> str:
    """A default metric's label, or a measure chosen by name as ir_measures writes it (its own label)."""
    return METRIC_LABELS.get(metric, metric)

SPLIT_ORDER = ("heldout", "all", "calibration")
MINUS = "\u2212"
HOW_TO_READ = (
    "Each difference is paired query by query (the same queries under both modes). The interval is a 95% paired-"
    "bootstrap interval of the mean difference; p is a two-sided sign-flip randomization test, with the paired t-test "
    "beside it; Holm adjusts p for the pairs compared on the same metric. 'Significant' means the Holm-adjusted p is "
    "below 0.05, not that the difference is large; the effect size d_z is the mean difference over the SD of the "
    "differences.")

COMPARISON_SUPPORTS = (
    "a difference in the stated metric between these configurations of this system (each mode with its complete "
    "configuration, fixture, embedding model and store, by digest) on this split of the dataset, over exactly "
    "these queries, with the stated interval and p-values")
COMPARISON_DOES_NOT = (
    "superiority of one retrieval method, or of this system, in general or over other systems",
    "the same difference on other data or domains, or on another split or subset of the dataset",
    "the same difference on other hosts, builds, stores, models or configurations",
    "why the difference arises",
    "a confirmed difference in a secondary metric: Holm controls the family-wise error within each metric's family "
    "of pairs, not across metrics; nDCG@10 is the primary metric")


def number(value: float, places: int = 4) -> str:
    return f"{value:.{places}f}".replace("-", MINUS)


def signed(value: float, places: int = 4) -> str:
    return f"{value:+.{places}f}".replace("-", MINUS)


def p_value(value: float | None) -> str:
    if value is None:
        return "undefined"
    # four decimals while they show two significant digits (0.0010, not 0.001 beside 0.0005); smaller ones as 1.5e-04
    return f"{value:.4f}" if value >= 0.00095 else f"{value:.2g}".replace("-", MINUS)


def optional(value: float | None, places: int = 3) -> str:
    return "undefined" if value is None else signed(value, places)


def interval(low: float, high: float, places: int = 4, sign: bool = False) -> str:
    show = signed if sign else number
    return f"[{show(low, places)}, {show(high, places)}]"


def pair_label(comparison: dict[str, Any]) -> str:
    return f"{comparison['a']} {MINUS} {comparison['b']}"


def verdict(comparison: dict[str, Any], split: str, metric: str = "ndcg_at_10") -> str:
    """One sentence: the difference, its interval, the p-values and the call after Holm."""
    stats = comparison["metrics"][metric]
    called = "significant" if stats["significant_after_holm"] else "not significant"
    return (f"{pair_label(comparison)} on {SPLIT_LABELS[split]}: {signed(stats['mean_difference'])} "
            f"{metric_label(metric)}, 95% CI {interval(stats['ci_low'], stats['ci_high'], sign=True)}, "
            f"p = {p_value(stats['randomization']['p_value'])} (randomization; t-test "
            f"{p_value(stats['t_test']['p_value'])}), Holm-adjusted p = {p_value(stats['holm_p_value'])}: "
            f"{called} after Holm (\u03b1 = 0.05)")


def wins_ties_losses(stats: dict[str, Any]) -> str:
    return f"{stats['wins']} / {stats['ties']} / {stats['losses']}"


MODE_DESCRIPTIONS = {"fts_only": "fts_only (lexical)", "vector_only": "vector_only (dense)",
                     "hybrid": "hybrid (fusion of the two)",
                     "run_file": "run_file (rankings made outside the harness, read from its run file: attested)"}


def no_comparison(split: str, modes: list[str]) -> str:
    """Why a split shows no comparison: one mode only, or no comparison artifact yet."""
    if len(modes) < 2:
        return f"One mode ({', '.join(modes)}) on this split: there is nothing to compare."
    return f"No comparison artifact for this split: run `python -m harness compare --split {split}`."


def system_line(receipt: dict[str, Any], modes: list[str]) -> str:
    """The report's opening sentence: which dataset, which system, which modes."""
    described = ", ".join(MODE_DESCRIPTIONS[mode] for mode in modes)
    system = receipt["system"]
    return (f"{long_title(receipt)}, system {system['name']} {system['version']}, "
            f"{len(modes)} retrieval mode{'s' if len(modes) > 1 else ''}: {described}.")

LANES_NOTE = ("A lane recomputed independently was replayed by the validator from primary data (the fixture, and for "
              "the built-in system the live store) with code of its own. A lane replayed through the live system was "
              "asked every query again, in a process handed only the query texts (and vectors), and answered exactly "
              "the rows: that shows the rows are what the live system answers to the same queries, not that its "
              "engine ranks correctly, nor that it did not read the relevance judgements from disk (the harness keeps "
              "them out of the system's process, not off the machine). A lane not verified is not eligible for a "
              "claim.")


def short_verdict(comparison: dict[str, Any], metric: str = "ndcg_at_10") -> tuple[str, str, bool]:
    """(the pair, its difference with interval and Holm-adjusted p, significant after Holm): a verdict in a list under
    the split it belongs to; the full statistics are in the comparison table."""
    stats = comparison["metrics"][metric]
    return (pair_label(comparison), f"{signed(stats['mean_difference'])} {metric_label(metric)}, 95% CI "
            f"{interval(stats['ci_low'], stats['ci_high'], sign=True)}, Holm-adjusted p = "
            f"{p_value(stats['holm_p_value'])}", bool(stats["significant_after_holm"]))


def called(significant: bool) -> str:
    return "significant after Holm" if significant else "not significant after Holm"
