"""The report's Markdown version, in the HTML's order: the headline table and what it shows, the first split's
verdicts, the published figures of other tools, then each split (its latency beside how it was measured), the
systems compared, provenance, what was verified, the receipt and the claim boundary. The plots are in the HTML."""

from harness.publish.report.headline import headline_reading, headline_table, reference_notes, reference_table
from harness.publish.report.report_data import NO_COMPARISON, ReportData, SplitData
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
from harness.publish.text.dataset_words import has_references, short_title
from harness.publish.text.latency_notes import contention_summary, latency_line
from harness.publish.text.markdown_text import code, inert
from harness.publish.text.reading_notes import latency_scope, split_notes
from harness.publish.text.report_text import (
    COMPARISON_DOES_NOT,
    COMPARISON_SUPPORTS,
    HOW_TO_READ,
    LANES_NOTE,
    SPLIT_LABELS,
    called,
    no_comparison,
    short_verdict,
    system_line,
)


def table_markdown(table: Table) -> list[str]:
    """Every cell as inert text: the headers and labels name modes, the cells hold what the receipts say; a group's
    heading is a row of its own, in bold."""
    alignments = "".join(" --- |" if i in table.text_columns else " ---: |" for i in range(1, len(table.headers)))
    lines = [f"**{inert(table.caption)}**", "", "| " + " | ".join(inert(h) for h in table.headers) + " |",
             "| --- |" + alignments]
    for row in table.rows:
        cells = [f"**{inert(row[0])}**", *[""] * (len(table.headers) - 1)] if len(row) == 1 else [inert(c) for c in row]
        lines.append("| " + " | ".join(cells) + " |")
    return [*lines, ""]


def _verdicts(split: SplitData) -> list[str]:
    if split.comparison is None:
        return [inert(no_comparison(split.split, split.modes)), ""]
    lines = []
    for comparison in split.comparison["comparisons"]:
        pair, numbers, significant = short_verdict(comparison)
        lines.append(f"- **{inert(pair)}**: {inert(numbers)}: {called(significant)}")
    return [*lines, ""]


def _split(split: SplitData, verdicts_shown: bool) -> list[str]:
    count = inert(split.inputs[0].aggregate["row_count"])
    lines = [f"## {SPLIT_LABELS[split.split].capitalize()} ({count} queries)", "",
             *table_markdown(metrics_table(split))]
    for note in split_notes(split.split, [entry.aggregate for entry in split.inputs]):
        lines += [inert(note), ""]
    if not (verdicts_shown and split.comparison):
        lines += ["### Verdicts", "", *_verdicts(split)]
    if split.comparison is not None:
        lines += ["### Every p-value, and every metric's difference", "", HOW_TO_READ, ""]
        for table in (comparison_table(split), all_metrics_table(split)):
            if table is not None:
                lines += table_markdown(table)
        procedure = split.comparison["procedure"]
        lines += [f"Seed {inert(procedure['seed'])}, {inert(procedure['bootstrap_resamples'])} bootstrap resamples, "
                  f"{inert(procedure['permutations'])} sign-flip permutations. Holm family: "
                  f"{inert(procedure['descriptions']['holm_family'])}.", ""]
    lines += ["### Success@k and Recall@k", "", *table_markdown(curves_table(split))]
    summary, reasons = contention_summary([entry.aggregate for entry in split.inputs])
    lines += ["### Latency", "", inert(summary), "", *(f"- {inert(reason)}" for reason in reasons)]
    lines += ([""] if reasons else []) + table_markdown(latency_table(split))
    lanes = lanes_table(split)
    return lines + (["### Where hybrid's top 10 came from", "", *table_markdown(lanes)] if lanes is not None else [])


def _answer(data: ReportData) -> list[str]:
    first = data.splits[0]
    lines = [*table_markdown(headline_table(data)), inert(headline_reading(data)), ""]
    if first.comparison is not None:
        lines += [f"## Verdicts on {SPLIT_LABELS[first.split]}", "", *_verdicts(first)]
    lines += [inert(latency_line(data.aggregates)), ""]
    if not has_references(data.receipt):
        return lines
    lines += ["## Reference figures from other tools", "", *table_markdown(reference_table())]
    return lines + [line for note in reference_notes(data) for line in (inert(note), "")]


def _provenance(data: ReportData) -> list[str]:
    notes = [f"Latency scope: {latency_scope(data.receipt)}; measured on the recorded machine only.",
             *(note for note in data.notes if not note.startswith(NO_COMPARISON))]
    notes += [note for note in (data.heldout_looks, data.trials) if note is not None]
    lines = ["## Provenance", "", *(line for note in notes for line in (inert(note), ""))]
    verification = verification_table(data)
    if verification is not None:
        lines += ["### What the validator verified, lane by lane", "", LANES_NOTE, "", *table_markdown(verification)]
    lines += ["### Receipt", ""]
    lines += [f"- {inert(label)}: " + "; ".join(code(line) for line in values) for label, values in receipt_items(data)]
    return [*lines, ""]


def render_markdown(data: ReportData) -> str:
    title = f"# {short_title(data.receipt)} retrieval evaluation" + ("" if data.validated else " \u2014 UNVALIDATED")
    status = ("Every aggregate and comparison shown passed the independent validator." if data.validated else
              "UNVALIDATED: rendered with `--unvalidated`; no validator verdict was obtained. Do not publish this.")
    lines = [title, "", inert(system_line(data.receipt, data.splits[0].modes)), "", status, "",
             *_answer(data),
             "The plots (per-query differences, Success@k and Recall@k, latency CDFs, hybrid lanes) are in the HTML "
             "version of this report.", ""]
    lines += [line for note in data.notes if note.startswith(NO_COMPARISON) for line in (inert(note), "")]
    for index, split in enumerate(data.splits):
        lines += _split(split, verdicts_shown=index == 0)
    lines += systems_markdown(data.systems, table_markdown)
    lines += _provenance(data)
    boundary = data.receipt["claim_boundary"]
    lines += ["## What these results support, and what they do not", "", inert(boundary["supports_lead"]), ""]
    lines += [f"- {inert(item)}" for item in boundary["supports"]] + ["", "They do not establish:", ""]
    lines += [f"- {inert(item)}" for item in boundary["does_not_establish"]]
    lines += ["", f"A comparison supports {COMPARISON_SUPPORTS}. It does not show:", ""]
    lines += [f"- {item}" for item in COMPARISON_DOES_NOT] + ["", inert(boundary["statement"]), ""]
    return "\n".join(lines)
