"""The validator's own table of the labels the publisher's texts use (read from harness/publish/, never imported):
a column's or row's label -> the artifact's field, a heading's words -> the split."""

import re

METRICS = {  # CLAIMS.md's short labels, the report's and the exports' long ones, the summary's keys
    "nDCG@10": "ndcg_at_10", "R@1": "recall_at_1", "R@5": "recall_at_5", "R@10": "recall_at_10",
    "MRR@10": "mrr_at_10", "MAP@10": "map_at_10", "S@1": "success_at_1", "S@5": "success_at_5",
    "S@10": "success_at_10", "R@100": "recall_at_100", "nDCG@100": "ndcg_at_100", "Recall@1": "recall_at_1",
    "Recall@5": "recall_at_5", "Recall@10": "recall_at_10", "Success@1": "success_at_1",
    "Success@5": "success_at_5", "Success@10": "success_at_10", "Recall@100": "recall_at_100"}
LONG = {"ndcg_at_10": "nDCG@10", "recall_at_1": "Recall@1", "recall_at_5": "Recall@5", "recall_at_10": "Recall@10",
        "mrr_at_10": "MRR@10", "map_at_10": "MAP@10", "success_at_1": "Success@1", "success_at_5": "Success@5",
        "success_at_10": "Success@10"}
LATENCY = {"p50 ms": "p50", "p95 ms": "p95", "max ms": "max", "mean ms": "mean"}
SPLITS = {"calibration": "calibration", "heldout": "heldout", "held-out": "heldout", "all queries": "all",
          "all": "all"}
SPLIT_WORDS = re.compile(r"\b(calibration|heldout|held-out|all queries|all)\b", re.IGNORECASE)
MINUS_PAIR = " - "  # a pair "a - b" after the minus sign is undone (figures.plain)
# a pair's statistics by column: the stats field(s) each shows
PAIR_COLUMNS = {
    "mean": ("mean_difference",), "95% CI": ("ci_low", "ci_high"), "p (randomization)": ("randomization",),
    "p (randomization, two-sided)": ("randomization",), "p (t-test)": ("t_test",), "p (Holm)": ("holm_p_value",),
    "p (Holm over every pair: exploratory)": ("holm_p_value",), "effect size d_z": ("effect_size",),
    "wins / ties / losses": ("wins", "ties", "losses")}
SIGNIFICANCE_COLUMNS = ("after Holm", "after Holm, \u03b1 = 0.05")
NOT_FIGURES = {"measured": "the latency table's 'measured' column (the run's contention word, attested)"}


def split_of(text: str) -> str | None:
    """The split a heading or a group row names, if any ('held-out: 4 queries' -> heldout)."""
    found = SPLIT_WORDS.search(text)
    return SPLITS[found.group(1).lower()] if found else None


NAMED = re.compile(r"(nDCG|P|R|AP|RR|Success|Judged)(\(rel=[1-9][0-9]*\))?@[1-9][0-9]*")  # a measure chosen by name


def metric_of(label: str) -> str | None:
    """The field a label shows: a default metric's key, or a measure chosen by name, which is its own label."""
    label = label.strip()
    return METRICS.get(label, label if NAMED.fullmatch(label) else None)


def pair_of(label: str) -> tuple[str, str] | None:
    """(a, b) of a pair's label 'a - b', a run's model in brackets after it dropped."""
    label = re.sub(r" \([^()]*\)$", "", label.strip())
    parts = label.split(MINUS_PAIR)
    return (parts[0].strip(), parts[1].strip()) if len(parts) == 2 and all(parts) else None
