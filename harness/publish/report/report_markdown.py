"""The report's Markdown version: the same tables, verdicts, receipt and claim boundary; the plots are in the HTML."""

from harness.publish.report.report_data import ReportData, SplitData
from harness.publish.report.report_systems import systems_markdown
from harness.publish.report.report_tables import (
    Table,
    all_metrics_table,
    comparison_table,
    curves_table,
    lanes_table,
    latency_table,
    metrics_table,
    receipt_items,
    verification_table,
)
from harness.publish.text.markdown_text import code, inert
from harness.publish.text.reading_notes import latency_scope, split_notes
from harness.publish.text.report_text import (
    COMPARISON_DOES_NOT,
    COMPARISON_SUPPORTS,
    HOW_TO_READ,
    LANES_NOTE,
    SPLIT_LABELS,
    no_comparison,
    system_line,
    verdict,
)


def table_markdown(table: Table) -> list[str]:
    """Every cell as inert text: the headers and labels name modes, the cells hold what the receipts say."""
    lines = [f"**{inert(table.caption)}**", "", "| " + " | ".join(inert(h) for h in table.headers) + " |",
             "| --- |" + " ---: |" * (len(table.headers) - 1)]
    lines += ["| " + " | ".join(inert(c) for c in row) + " |" for row in table.rows]
    return [*lines, ""]


def _split(split: SplitData) -> list[str]:
    count = inert(split.inputs[0].aggregate["row_count"])
    lines = [f"## {SPLIT_LABELS[split.split].capitalize()} ({count} queries)", ""]
    lines += table_markdown(metrics_table(split)) + table_markdown(latency_table(split))
    for note in split_notes(split.split, [entry.aggregate for entry in split.inputs]):
        lines += [inert(note), ""]
    if split.comparison is None:
        lines += [inert(no_comparison(split.split, split.modes)), ""]
    else:
        lines += [f"- {inert(verdict(c, split.split))}" for c in split.comparison["comparisons"]]
        lines += ["", HOW_TO_READ, ""]
        for table in (comparison_table(split), all_metrics_table(split)):
            if table is not None:
                lines += table_markdown(table)
        procedure = split.comparison["procedure"]
        lines += [f"Seed {inert(procedure['seed'])}, {inert(procedure['bootstrap_resamples'])} bootstrap resamples, "
                  f"{inert(procedure['permutations'])} sign-flip permutations. Holm family: "
                  f"{inert(procedure['descriptions']['holm_family'])}.", ""]
    lanes = lanes_table(split)
    lines += table_markdown(curves_table(split)) + (table_markdown(lanes) if lanes is not None else [])
    return lines


def render_markdown(data: ReportData) -> str:
    title = "# SciFact retrieval evaluation" + ("" if data.validated else " \u2014 UNVALIDATED")
    status = ("Every aggregate and comparison shown passed the independent validator." if data.validated else
              "UNVALIDATED: rendered with `--unvalidated`; no validator verdict was obtained. Do not publish this.")
    lines = [title, "", inert(system_line(data.receipt["system"], data.splits[0].modes)), "", status, "",
             "The plots (per-query differences, Success@k and Recall@k, latency CDFs, hybrid lanes) are in the HTML "
             "version of this report.", "",
             inert(f"Latency scope: {latency_scope(data.receipt)}; measured on the recorded machine only."), ""]
    lines += [inert(note) for note in data.notes] + ([""] if data.notes else [])
    lines += [inert(data.heldout_looks), ""] if data.heldout_looks is not None else []
    for split in data.splits:
        lines += _split(split)
    lines += systems_markdown(data.systems, table_markdown)
    lines += ["## Receipt", ""]
    lines += [f"- {inert(label)}: " + "; ".join(code(line) for line in values) for label, values in receipt_items(data)]
    lines += [""]
    verification = verification_table(data)
    if verification is not None:
        lines += ["## What was verified", "", LANES_NOTE, "", *table_markdown(verification)]
    boundary = data.receipt["claim_boundary"]
    lines += ["## What these results support, and what they do not", "", inert(boundary["supports_lead"]), ""]
    lines += [f"- {inert(item)}" for item in boundary["supports"]] + ["", "They do not establish:", ""]
    lines += [f"- {inert(item)}" for item in boundary["does_not_establish"]]
    lines += ["", f"A comparison supports {COMPARISON_SUPPORTS}. It does not show:", ""]
    lines += [f"- {item}" for item in COMPARISON_DOES_NOT] + ["", inert(boundary["statement"]), ""]
    return "\n".join(lines)
