"""The "Comparisons" section of CLAIMS.md, from the bundled (and validated) comparison artifacts."""

from collections.abc import Callable, Sequence
from typing import Any

from harness.evaluation.receipts.artifacts import named_dataset
from harness.publish.text.markdown_text import inert
from harness.publish.text.reading_notes import all_queries_note
from harness.publish.text.report_text import (
    COMPARISON_DOES_NOT,
    COMPARISON_SUPPORTS,
    SPLIT_LABELS,
    SPLIT_ORDER,
    interval,
    metric_label,
    p_value,
    pair_label,
    signed,
    verdict,
)


def difference_table(document: dict[str, Any],
                     label: Callable[[dict[str, Any]], str] = pair_label) -> list[str]:
    """Every pair on every metric; `label` names a pair (its arms, and their models where they differ)."""
    lines = ["| difference | metric | mean | 95% CI | p (randomization) | p (t-test) | p (Holm) | after Holm |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for comparison in document["comparisons"]:
        for metric in document["metrics"]:
            stats = comparison["metrics"][metric]
            cells = [label(comparison), metric_label(metric), signed(stats["mean_difference"]),
                     interval(stats["ci_low"], stats["ci_high"], sign=True), p_value(stats["randomization"]["p_value"]),
                     p_value(stats["t_test"]["p_value"]), p_value(stats["holm_p_value"]),
                     "significant" if stats["significant_after_holm"] else "not significant"]
            lines.append("| " + " | ".join(inert(cell) for cell in cells) + " |")
    return lines


def compared_dataset(documents: Sequence[dict[str, Any]]) -> str | None:
    """The dataset the compared artifacts' names carry (scifact of scifact-hybrid-heldout.aggregate.json)."""
    return named_dataset(str(documents[0]["inputs"][0]["aggregate"]))


def comparisons_section(comparisons: Sequence[dict[str, Any]], calibration_count: int) -> list[str]:
    lines = ["## Comparisons", "",
             f"Paired over the same queries of one split, from `artifacts/{compared_dataset(comparisons)}-comparison-"
             "<split>.json` (each passed "
             "the validator, which recomputed every number from the rows: `validation/comparisons/`). nDCG@10 is the "
             "primary metric; Holm's adjustment runs over each metric's family of pairs.", ""]
    for document in sorted(comparisons, key=lambda d: SPLIT_ORDER.index(d["split"])):
        split, procedure = document["split"], document["procedure"]
        validated = ("every input aggregate ELIGIBLE under the validator" if document["inputs_validation"]["validated"]
                     else "inputs not validated when it was computed (calibration, --no-validate); the bundle's "
                          "validator found them eligible")
        lines += [f"### {SPLIT_LABELS[split]} ({inert(document['query_count'])} queries)", ""]
        lines += [inert(all_queries_note(calibration_count)), ""] if split == "all" else []
        lines += [f"- {inert(verdict(comparison, split))}" for comparison in document["comparisons"]]
        lines += ["", *difference_table(document), "",
                  f"Seed {inert(procedure['seed'])}, {inert(procedure['bootstrap_resamples'])} bootstrap resamples, "
                  f"{inert(procedure['permutations'])} sign-flip permutations, p = (b + 1) / (permutations + 1); "
                  f"{validated}.", ""]
    lines += [f"Each comparison supports {COMPARISON_SUPPORTS}.", "", "It does not support:", ""]
    lines += [f"- {item}" for item in COMPARISON_DOES_NOT]
    return [*lines, ""]
