"""The report as one self-contained HTML file: inline CSS and SVG only, no script, no font or file from elsewhere.

The answer first: the headline table, what it shows and does not, the first split's verdicts, and the published
figures of other tools; then each split in detail (the details folded), the systems compared, provenance, what was
verified, the receipt and the claim boundary.
"""

from html import escape

from harness.publish.report.headline import headline_reading, headline_table, reference_notes, reference_table
from harness.publish.report.report_data import NO_COMPARISON, ReportData
from harness.publish.report.report_sections import folded, split_section, table_html, verdicts_html
from harness.publish.report.report_style import CSS
from harness.publish.report.report_systems import systems_html
from harness.publish.report.report_tables import receipt_items, verification_table
from harness.publish.text.dataset_words import has_references, short_title
from harness.publish.text.latency_notes import latency_line
from harness.publish.text.reading_notes import latency_scope
from harness.publish.text.report_text import (
    COMPARISON_DOES_NOT,
    COMPARISON_SUPPORTS,
    LANES_NOTE,
    SPLIT_LABELS,
    system_line,
)


def _answer(data: ReportData) -> list[str]:
    first = data.splits[0]
    parts = ["<section id=\"answer\">", table_html(headline_table(data)),
             f"<p class=\"reading\">{escape(headline_reading(data))}</p>"]
    if first.comparison is not None:
        parts += [f"<h2>Verdicts on {escape(SPLIT_LABELS[first.split])}</h2>", verdicts_html(first)]
    parts.append(f"<p class=\"note\">{escape(latency_line(data.aggregates))}</p>")
    if has_references(data.receipt):
        parts += ["<h2 id=\"references\">Reference figures from other tools</h2>", table_html(reference_table())]
        parts += [f"<p class=\"note\">{escape(note)}</p>" for note in reference_notes(data)]
    return [*parts, "</section>"]


def _boundary(data: ReportData) -> list[str]:
    boundary = data.receipt["claim_boundary"]
    return ["<h2 id=\"boundary\">What these results support, and what they do not</h2>",
            f"<p>{escape(boundary['supports_lead'])}</p>",
            "<ul>" + "".join(f"<li>{escape(item)}</li>" for item in boundary["supports"]) + "</ul>",
            "<p>They do not establish:</p>",
            "<ul>" + "".join(f"<li>{escape(item)}</li>" for item in boundary["does_not_establish"]) + "</ul>",
            f"<p>A comparison supports {escape(COMPARISON_SUPPORTS)}. It does not show:</p>",
            "<ul>" + "".join(f"<li>{escape(item)}</li>" for item in COMPARISON_DOES_NOT) + "</ul>",
            f"<p class=\"note\">{escape(boundary['statement'])}</p>"]


def _provenance(data: ReportData) -> list[str]:
    notes = [f"Latency scope: {latency_scope(data.receipt)}; measured on the recorded machine only.",
             *(note for note in data.notes if not note.startswith(NO_COMPARISON))]
    notes += [note for note in (data.heldout_looks, data.trials) if note is not None]
    parts = ["<h2 id=\"provenance\">Provenance</h2>", *(f"<p class=\"note\">{escape(n)}</p>" for n in notes)]
    verification = verification_table(data)
    if verification is not None:
        parts.append(folded("What the validator verified, lane by lane", [
            f"<p class=\"note\">{escape(LANES_NOTE)}</p>", table_html(verification)]))
    parts.append(folded("Receipt: the digests of everything shown", ["<dl class=\"receipt\" id=\"receipt\">" + "".join(
        f"<dt>{escape(label)}</dt>" + "".join(f"<dd>{escape(line)}</dd>" for line in lines)
        for label, lines in receipt_items(data)) + "</dl>"]))
    return parts


def _contents(data: ReportData) -> str:
    links = [("answer", "The answer")] + ([("references", "Reference figures")] if has_references(data.receipt) else [])
    links += [(f"split-{split.split}", SPLIT_LABELS[split.split].capitalize()) for split in data.splits]
    links += [("systems", "Systems compared")] if data.systems else []
    links += [("provenance", "Provenance"), ("boundary", "What they support")]
    return "<nav>" + " \u00b7 ".join(f"<a href=\"#{target}\">{escape(text)}</a>" for target, text in links) + "</nav>"


def render_html(data: ReportData) -> str:
    stamp = "" if data.validated else " <span class=\"stamp\">UNVALIDATED</span>"
    title = f"{short_title(data.receipt)} retrieval evaluation" + ("" if data.validated else " \u2014 UNVALIDATED")
    status = ("<p class=\"status\">Every aggregate and comparison shown passed the independent validator "
              "(<code>python -m harness.validator</code>).</p>" if data.validated else
              "<p class=\"status unvalidated\">UNVALIDATED: rendered with <code>--unvalidated</code>; no validator "
              "verdict was obtained for these artifacts. Do not publish this report.</p>")
    parts = ["<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
             "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
             f"<title>{escape(title)}</title><style>{CSS}</style></head><body><main>",
             f"<h1>{escape(short_title(data.receipt))} retrieval evaluation{stamp}</h1>",
             f"<p class=\"lede\">{escape(system_line(data.receipt, data.splits[0].modes))}</p>", status]
    parts += _answer(data)
    parts.append(_contents(data))
    parts += [f"<p class=\"note\">{escape(note)}</p>" for note in data.notes if note.startswith(NO_COMPARISON)]
    for index, split in enumerate(data.splits):
        parts += split_section(split, verdicts_shown=index == 0)
    parts += systems_html(data.systems, table_html)
    parts += _provenance(data)
    parts += _boundary(data)
    parts.append("</main></body></html>")
    return "\n".join(parts) + "\n"
