"""What the report leads with: nDCG@10 and Recall@10 of every mode on every split, the best of each split marked
(by a sign, not by colour alone), one plain sentence of what that shows and does not, and the published figures of
other tools beside them (publish.text.reference_scores)."""

from typing import Any

from harness.publish.report.report_data import ReportData, SplitData
from harness.publish.report.report_tables import Table
from harness.publish.text.dataset_words import long_title
from harness.publish.text.reference_scores import REFERENCES, SAME_QUERIES, dense_gap
from harness.publish.text.report_text import SPLIT_LABELS, number, pair_label

BEST = "\u2605"
HEADLINE_METRICS = (("nDCG@10", "ndcg_at_10"), ("Recall@10", "recall_at_10"))
SPLIT_ROLES = {"heldout": "run after the freeze", "all": "every test query, calibration's among them",
               "calibration": "the configuration was chosen on these"}


def split_heading(split: SplitData) -> str:
    count = split.inputs[0].aggregate["row_count"]
    return f"{SPLIT_LABELS[split.split]}: {count} queries, {SPLIT_ROLES[split.split]}"


def _ndcg(split: SplitData, mode: str) -> float:
    return float(split.aggregate(mode)["metrics"]["ndcg_at_10"])


def headline_table(data: ReportData) -> Table:
    """Per split, a group of rows, one per mode; a figure is marked best when it equals its split's highest as shown
    (every tied figure is marked); a split of one mode marks nothing."""
    rows: list[list[str]] = []
    for split in data.splits:
        rows.append([split_heading(split)])
        shown = {mode: [number(split.aggregate(mode)["metrics"][key]) for _, key in HEADLINE_METRICS]
                 for mode in split.modes}
        best = [max(shown[mode][i] for mode in split.modes) for i in range(len(HEADLINE_METRICS))]
        for mode in split.modes:
            rows.append([mode, *(f"{value} {BEST}" if len(split.modes) > 1 and value == best[i] else value
                                 for i, value in enumerate(shown[mode]))])
    return Table("headline", f"nDCG@10 and Recall@10, mean over each split's queries ({BEST} best of its split)",
                 ["split and mode", *(label for label, _ in HEADLINE_METRICS)], rows)


def _differences(split: SplitData) -> str:
    if split.comparison is None:
        return (" No comparison between its modes was made, so no difference between them is established."
                if len(split.modes) > 1 else "")
    pairs = [(pair_label(c), c["metrics"]["ndcg_at_10"]["significant_after_holm"])
             for c in split.comparison["comparisons"]]
    significant = [pair for pair, called in pairs if called]
    if not significant:
        return (" None of the paired differences in nDCG@10 between its modes is significant after Holm's "
                "adjustment (\u03b1 = 0.05), so no mode is shown to rank better than another here.")
    others = [pair for pair, called in pairs if not called]
    rest = f"; {', '.join(others)} {'is' if len(others) == 1 else 'are'} not" if others else ""
    return (f" Of the paired differences in nDCG@10, {', '.join(significant)} "
            f"{'is' if len(significant) == 1 else 'are'} significant after Holm's adjustment (\u03b1 = 0.05){rest}.")


def headline_reading(data: ReportData) -> str:
    """What the headline table shows, and what it does not, in plain words; led by the first split (held-out when
    there is one)."""
    first = data.splits[0]
    count = first.inputs[0].aggregate["row_count"]
    best = max(number(_ndcg(first, mode)) for mode in first.modes)
    top = [mode for mode in first.modes if number(_ndcg(first, mode)) == best]
    if len(first.modes) == 1:
        leader = f"the one mode, {top[0]}, scores nDCG@10 {best}"
    elif len(top) == 1:
        leader = f"{top[0]} has the highest nDCG@10 ({best})"
    else:
        leader = f"{', '.join(top[:-1])} and {top[-1]} share the highest nDCG@10 ({best})"
    return (f"On {SPLIT_LABELS[first.split]} ({count} queries), {leader}.{_differences(first)} {BEST} marks the "
            f"highest figure of a split, not a significant difference. These are this system's configurations on "
            f"{long_title(data.receipt)}, measured here; they do not show that one retrieval method is better in "
            "general, on other data, or on another machine.")


def reference_table() -> Table:
    rows = [[r.tool, f"{r.ndcg_at_10:g}", f"{r.protocol}. Source: {r.source}."] for r in REFERENCES]
    return Table("reference", "Published SciFact nDCG@10 of other tools (not measured here)",
                 ["tool and method", "nDCG@10", "protocol and source"], rows, text_columns=(2,))


def reference_notes(data: ReportData) -> list[str]:
    """Beside the references: which split shares their queries, and why the dense lane sits below MTEB's figure."""
    notes = [SAME_QUERIES]
    receipt: dict[str, Any] = data.receipt
    every = next((s for s in data.splits if s.split == "all"), None)
    ndcg = _ndcg(every, "vector_only") if every is not None and "vector_only" in every.modes else None
    gap = dense_gap(receipt, ndcg) if "vector_only" in data.splits[0].modes else None
    if gap is not None:
        notes.append(gap)
    return notes
