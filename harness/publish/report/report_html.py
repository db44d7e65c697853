"""The report as one self-contained HTML file: inline CSS and SVG only, no script, no font or file from elsewhere."""

from html import escape

from harness.publish.report import report_plots as plots
from harness.publish.report.report_data import (
    TOP_DEPTH,
    ReportData,
    SplitData,
    curves,
    differences,
    lane_counts,
    latencies,
)
from harness.publish.report.report_systems import systems_html
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
from harness.publish.text.reading_notes import latency_scope, split_notes
from harness.publish.text.report_text import (
    COMPARISON_DOES_NOT,
    COMPARISON_SUPPORTS,
    HOW_TO_READ,
    LANES_NOTE,
    SPLIT_LABELS,
    interval,
    no_comparison,
    pair_label,
    signed,
    system_line,
    verdict,
)

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #1a1a1a;
       background: #fff; margin: 0; line-height: 1.45; }
main { max-width: 1060px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 1.6rem; margin: 0 0 4px; }
h1 .stamp { color: #b00020; }
h2 { font-size: 1.25rem; margin: 36px 0 8px; padding-top: 12px; border-top: 2px solid #ddd; }
h3 { font-size: 1.02rem; margin: 22px 0 6px; }
p.status { padding: 8px 12px; border-left: 4px solid #2e7d32; background: #f1f8f1; }
p.status.unvalidated { border-color: #b00020; background: #fdecee; }
ul.verdicts li { margin: 4px 0; }
.call { display: inline-block; padding: 0 6px; border-radius: 3px; font-size: 0.85rem; font-weight: 600; }
.call.significant { background: #e3f1e4; color: #1b5e20; }
.call.not-significant { background: #eeeeee; color: #444; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 0.86rem; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { border-bottom: 1px solid #e3e3e3; padding: 4px 10px; vertical-align: top; }
thead th { border-bottom: 2px solid #999; text-align: left; background: #fafafa; }
th[scope="row"] { text-align: left; font-weight: 600; white-space: nowrap; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td .ci { color: #555; font-size: 0.8rem; }
figure { margin: 8px 0 18px; }
figure svg { width: 100%; max-width: 880px; height: auto; }
figcaption { font-size: 0.82rem; color: #444; }
dl.receipt dt { font-weight: 600; margin-top: 6px; }
dl.receipt dd { margin-left: 16px; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.78rem;
                overflow-wrap: anywhere; }
.note { color: #555; font-size: 0.86rem; }
nav { font-size: 0.9rem; margin: 4px 0 12px; }
div.wide { overflow-x: auto; }  /* a wide table scrolls on its own on a narrow screen, not the whole page */
nav a { color: #0b57a4; }
"""


def table_html(table: Table) -> str:
    head = "".join(f"<th scope=\"col\">{escape(h)}</th>" for h in table.headers)
    body = []
    for row in table.rows:
        cells = [f"<th scope=\"row\">{escape(row[0])}</th>"]
        for cell in row[1:]:
            if " [" in cell and not cell.startswith("["):
                mean, ci = cell.split(" [", 1)
                cells.append(f"<td class=\"num\">{escape(mean)}<br><span class=\"ci\">[{escape(ci)}</span></td>")
            else:
                cells.append(f"<td class=\"num\">{escape(cell)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (f"<div class=\"wide\"><table id=\"{escape(table.id)}\"><caption>{escape(table.caption)}</caption><thead>"
            f"<tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>")


def _figure(svg: str, caption: str) -> str:
    return f"<figure>{svg}<figcaption>{escape(caption)}</figcaption></figure>"


def _verdicts(split: SplitData) -> str:
    if split.comparison is None:
        return ""
    items = []
    for comparison in split.comparison["comparisons"]:
        significant = comparison["metrics"]["ndcg_at_10"]["significant_after_holm"]
        sentence, call = verdict(comparison, split.split).rsplit(": ", 1)
        label, rest = sentence.split(": ", 1)
        css = "significant" if significant else "not-significant"
        items.append(f"<li><strong>{escape(label)}</strong>: {escape(rest)}: <span class=\"call {css}\">"
                     f"{escape(call)}</span></li>")
    return f"<ul class=\"verdicts\">{''.join(items)}</ul>"


def _comparison_section(split: SplitData) -> list[str]:
    if split.comparison is None:
        return ["<h3>Comparisons</h3>", f"<p class=\"note\">{escape(no_comparison(split.split, split.modes))}</p>"]
    procedure = split.comparison["procedure"]
    parts = ["<h3>Comparisons</h3>", _verdicts(split), f"<p class=\"note\">{escape(HOW_TO_READ)}</p>"]
    parts += [table_html(t) for t in (comparison_table(split), all_metrics_table(split)) if t is not None]
    parts.append(f"<p class=\"note\">Paired over {split.comparison['query_count']} queries; seed {procedure['seed']}, "
                 f"{procedure['bootstrap_resamples']} bootstrap resamples, {procedure['permutations']} sign-flip "
                 f"permutations. Holm family: {escape(procedure['descriptions']['holm_family'])}.</p>")
    parts.append("<h3>Per-query nDCG@10 differences</h3>")
    for comparison in split.comparison["comparisons"]:
        stats = comparison["metrics"]["ndcg_at_10"]
        caption = (f"mean {signed(stats['mean_difference'])}, 95% CI "
                   f"{interval(stats['ci_low'], stats['ci_high'], sign=True)}; "
                   f"{stats['wins']} wins, {stats['ties']} ties, {stats['losses']} losses")
        values = differences(split, comparison["a"], comparison["b"])
        parts.append(_figure(plots.difference_chart(pair_label(comparison), values, caption),
                             f"Each bar is one query's nDCG@10 under {comparison['a']} minus under {comparison['b']}, "
                             "sorted; green bars are queries the first mode wins, orange ones it loses."))
    return parts


def _split_section(split: SplitData) -> list[str]:
    title = f"{SPLIT_LABELS[split.split].capitalize()} ({split.inputs[0].aggregate['row_count']} queries)"
    parts = [f"<section id=\"split-{split.split}\"><h2>{escape(title)}</h2>", "<h3>Metrics</h3>",
             table_html(metrics_table(split)), table_html(latency_table(split))]
    parts += [f"<p class=\"note\">{escape(note)}</p>"
              for note in split_notes(split.split, [entry.aggregate for entry in split.inputs])]
    parts += _comparison_section(split)
    series = {mode: curves(split.rows(mode)) for mode in split.modes}
    parts += ["<h3>Success@k and Recall@k</h3>",
              _figure(plots.curves_chart(series), "Mean over every query of the split, from the ranked ids and qrels."),
              table_html(curves_table(split)), "<h3>Latency</h3>",
              _figure(plots.latency_chart({mode: latencies(split.rows(mode)) for mode in split.modes}),
                      "Empirical CDF of each query's retrieval-call latency; local to the recorded machine.")]
    lanes = lanes_table(split)
    if lanes is not None:
        parts += ["<h3>Where hybrid's top 10 came from</h3>",
                  _figure(plots.lanes_chart(lane_counts(split.rows("hybrid"), TOP_DEPTH)),
                          "At each hybrid rank, the number of queries whose result there was in the lexical lane's "
                          "own top 10 only, the dense lane's only, both, or neither (fusion lifted it from lower "
                          "down). Every result was in at least one lane's top 100, the fusion's candidates: see the "
                          "table."), table_html(lanes)]
    return [*parts, "</section>"]


def _boundary(data: ReportData) -> list[str]:
    boundary = data.receipt["claim_boundary"]
    parts = ["<h2 id=\"boundary\">What these results support, and what they do not</h2>",
             f"<p>{escape(boundary['supports_lead'])}</p>",
             "<ul>" + "".join(f"<li>{escape(item)}</li>" for item in boundary["supports"]) + "</ul>",
             "<p>They do not establish:</p>",
             "<ul>" + "".join(f"<li>{escape(item)}</li>" for item in boundary["does_not_establish"]) + "</ul>",
             f"<p>A comparison supports {escape(COMPARISON_SUPPORTS)}. It does not show:</p>",
             "<ul>" + "".join(f"<li>{escape(item)}</li>" for item in COMPARISON_DOES_NOT) + "</ul>",
             f"<p class=\"note\">{escape(boundary['statement'])}</p>"]
    return parts


def _contents(data: ReportData) -> str:
    links = [(f"split-{split.split}", SPLIT_LABELS[split.split].capitalize()) for split in data.splits]
    links += [("systems", "Systems compared")] if data.systems else []
    links += [("receipt", "Receipt"), ("boundary", "What they support")]
    return "<nav>" + " \u00b7 ".join(f"<a href=\"#{target}\">{escape(text)}</a>" for target, text in links) + "</nav>"


def render_html(data: ReportData) -> str:
    stamp = "" if data.validated else " <span class=\"stamp\">UNVALIDATED</span>"
    title = "SciFact retrieval evaluation" + ("" if data.validated else " \u2014 UNVALIDATED")
    status = ("<p class=\"status\">Every aggregate and comparison shown passed the independent validator "
              "(<code>python -m harness.validator</code>).</p>" if data.validated else
              "<p class=\"status unvalidated\">UNVALIDATED: rendered with <code>--unvalidated</code>; no validator "
              "verdict was obtained for these artifacts. Do not publish this report.</p>")
    parts = ["<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
             "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
             f"<title>{escape(title)}</title><style>{CSS}</style></head><body><main>",
             f"<h1>SciFact retrieval evaluation{stamp}</h1>",
             f"<p>{escape(system_line(data.receipt['system'], data.splits[0].modes))}</p>",
             status]
    scope = f"Latency scope: {latency_scope(data.receipt)}; measured on the recorded machine only."
    parts.append(f"<p class=\"note\">{escape(scope)}</p>")
    if data.heldout_looks is not None:
        parts.append(f"<p class=\"looks\">{escape(data.heldout_looks)}</p>")
    parts.append(_contents(data))
    first = data.splits[0]
    if first.comparison is not None:
        parts += [f"<h2>Verdicts on {escape(SPLIT_LABELS[first.split])}</h2>", _verdicts(first)]
    parts += [f"<p class=\"note\">{escape(note)}</p>" for note in data.notes]
    for split in data.splits:
        parts += _split_section(split)
    parts += systems_html(data.systems, table_html)
    parts += ["<h2 id=\"receipt\">Receipt</h2>", "<dl class=\"receipt\">" + "".join(
        f"<dt>{escape(label)}</dt>" + "".join(f"<dd>{escape(line)}</dd>" for line in lines)
        for label, lines in receipt_items(data)) + "</dl>"]
    verification = verification_table(data)
    if verification is not None:
        parts += ["<h2 id=\"verification\">What was verified</h2>", f"<p class=\"note\">{escape(LANES_NOTE)}</p>",
                  table_html(verification)]
    parts += _boundary(data)
    parts.append("</main></body></html>")
    return "\n".join(parts) + "\n"
