"""One split's part of the HTML report: its metrics, its verdicts, its latency with how it was measured, and the
details (every statistic, the plots, the lanes of hybrid) folded under it."""

from html import escape

from harness.publish.report.report_data import TOP_DEPTH, SplitData, curves, differences, lane_counts, latencies
from harness.publish.report.report_tables import (
    Table,
    all_metrics_table,
    comparison_table,
    curves_table,
    lanes_table,
    latency_table,
    metrics_table,
)
from harness.publish.text.latency_notes import QUIET, contention_flag, contention_summary
from harness.publish.text.reading_notes import split_notes
from harness.publish.text.report_text import (
    HOW_TO_READ,
    SPLIT_LABELS,
    called,
    interval,
    no_comparison,
    short_verdict,
    signed,
)

BEST = "\u2605"


def _cell(cell: str, text: bool) -> str:
    if text:
        return f"<td class=\"text\">{escape(cell)}</td>"
    if cell.startswith("\u26a0"):
        return f"<td class=\"text flag\">{escape(cell)}</td>"
    if cell.endswith(f" {BEST}"):
        return (f"<td class=\"num best\">{escape(cell[:-2])} <span role=\"img\" aria-label=\"best of its split\">"
                f"{BEST}</span></td>")
    if " [" in cell and not cell.startswith("["):
        mean, ci = cell.split(" [", 1)
        return f"<td class=\"num\">{escape(mean)}<br><span class=\"ci\">[{escape(ci)}</span></td>"
    return f"<td class=\"num\">{escape(cell)}</td>"


def table_html(table: Table) -> str:
    head = "".join(f"<th scope=\"col\">{escape(h)}</th>" for h in table.headers)
    body = []
    for row in table.rows:
        if len(row) == 1:
            body.append(f"<tr class=\"group\"><th scope=\"rowgroup\" colspan=\"{len(table.headers)}\">"
                        f"{escape(row[0])}</th></tr>")
            continue
        cells = [f"<th scope=\"row\">{escape(row[0])}</th>"]
        cells += [_cell(cell, index in table.text_columns) for index, cell in enumerate(row[1:], start=1)]
        body.append("<tr>" + "".join(cells) + "</tr>")
    # The caption stands above the table's box, not inside it, so it wraps to the screen when the table scrolls.
    return (f"<p class=\"caption\" id=\"caption-{escape(table.id)}\">{escape(table.caption)}</p><div class=\"wide\">"
            f"<table id=\"{escape(table.id)}\" aria-labelledby=\"caption-{escape(table.id)}\"><thead><tr>{head}</tr>"
            f"</thead><tbody>{''.join(body)}</tbody></table></div>")


def figure(svg: str, caption: str) -> str:
    return f"<figure>{svg}<figcaption>{escape(caption)}</figcaption></figure>"


def folded(summary: str, parts: list[str]) -> str:
    return f"<details><summary>{escape(summary)}</summary>{''.join(parts)}</details>"


def verdicts_html(split: SplitData) -> str:
    """The split's verdicts on nDCG@10, once: each pair, its difference, interval and Holm-adjusted p, and the call."""
    if split.comparison is None:
        return f"<p class=\"note\">{escape(no_comparison(split.split, split.modes))}</p>"
    items = []
    for comparison in split.comparison["comparisons"]:
        pair, numbers, significant = short_verdict(comparison)
        css = "significant" if significant else "not-significant"
        items.append(f"<li><strong>{escape(pair)}</strong>: {escape(numbers)}: <span class=\"call {css}\">"
                     f"{escape(called(significant))}</span></li>")
    return f"<ul class=\"verdicts\">{''.join(items)}</ul>"


def contention_html(split: SplitData) -> list[str]:
    summary, reasons = contention_summary([entry.aggregate for entry in split.inputs])
    quiet = all(contention_flag(entry.aggregate) == QUIET for entry in split.inputs)
    parts = [f"<p class=\"contention{' quiet' if quiet else ''}\">{escape(summary)}</p>"]
    if reasons:
        parts.append("<ul class=\"reasons\">" + "".join(f"<li>{escape(r)}</li>" for r in reasons) + "</ul>")
    return parts


def _statistics(split: SplitData) -> list[str]:
    from harness.publish.report import report_plots as plots  # matplotlib: imported only to draw
    if split.comparison is None:
        return []
    procedure = split.comparison["procedure"]
    tables = [table_html(t) for t in (comparison_table(split), all_metrics_table(split)) if t is not None]
    note = (f"<p class=\"note\">Paired over {split.comparison['query_count']} queries; seed {procedure['seed']}, "
            f"{procedure['bootstrap_resamples']} bootstrap resamples, {procedure['permutations']} sign-flip "
            f"permutations. Holm family: {escape(procedure['descriptions']['holm_family'])}.</p>")
    charts = []
    for comparison in split.comparison["comparisons"]:
        stats = comparison["metrics"]["ndcg_at_10"]
        label = f"{comparison['a']} \u2212 {comparison['b']}"
        charts.append(figure(plots.difference_chart(label, differences(split, comparison["a"], comparison["b"])),
                             f"{label}: each query's nDCG@10 under {comparison['a']} minus under {comparison['b']}, "
                             f"sorted; above zero the first mode wins. Mean {signed(stats['mean_difference'])}, 95% CI "
                             f"{interval(stats['ci_low'], stats['ci_high'], sign=True)}; {stats['wins']} wins, "
                             f"{stats['ties']} ties, {stats['losses']} losses."))
    return [folded("Every p-value, and every metric's difference", [f"<p class=\"note\">{escape(HOW_TO_READ)}</p>",
                                                                     *tables, note]),
            folded("Per-query nDCG@10 differences (plots)", charts)]


def _latency(split: SplitData) -> list[str]:
    from harness.publish.report import report_plots as plots  # matplotlib: imported only to draw
    flags = {e.mode: contention_flag(e.aggregate).removeprefix("\u26a0 ") for e in split.inputs
             if contention_flag(e.aggregate) != QUIET}
    chart = plots.latency_chart({mode: latencies(split.rows(mode)) for mode in split.modes}, flags)
    caption = ("Empirical CDF of each query's retrieval-call latency on the recorded machine. " + (
        f"\u26a0 Dashed: not measured on a quiet machine ({', '.join(f'{m}: {f}' for m, f in flags.items())}); "
        "those latencies include time spent waiting for a CPU." if flags else
        "Every run here was measured on a quiet machine by the contention rule."))
    return ["<h3>Latency</h3>", *contention_html(split), table_html(latency_table(split)),
            folded("Latency CDF (plot)", [figure(chart, caption)])]


def split_section(split: SplitData, *, verdicts_shown: bool) -> list[str]:
    """`verdicts_shown`: the split's verdicts lead the report already, so they are not repeated here."""
    from harness.publish.report import report_plots as plots  # matplotlib: imported only to draw
    title = f"{SPLIT_LABELS[split.split].capitalize()} ({split.inputs[0].aggregate['row_count']} queries)"
    parts = [f"<section id=\"split-{split.split}\"><h2>{escape(title)}</h2>", table_html(metrics_table(split))]
    parts += [f"<p class=\"note\">{escape(note)}</p>"
              for note in split_notes(split.split, [entry.aggregate for entry in split.inputs])]
    parts += (["<p class=\"note\">Its verdicts lead the report, above.</p>"] if verdicts_shown and split.comparison
              else ["<h3>Verdicts</h3>", verdicts_html(split)])
    parts += _statistics(split)
    series = {mode: curves(split.rows(mode)) for mode in split.modes}
    parts.append(folded("Success@k and Recall@k, k = 1..10", [
        figure(plots.curves_chart(series), "Mean over every query of the split, from the ranked ids and qrels."),
        table_html(curves_table(split))]))
    parts += _latency(split)
    lanes = lanes_table(split)
    if lanes is not None:
        parts.append(folded("Where hybrid's top 10 came from", [
            figure(plots.lanes_chart(lane_counts(split.rows("hybrid"), TOP_DEPTH)),
                   "At each hybrid rank, the number of queries whose result there was in the lexical lane's own top 10 "
                   "only, the dense lane's only, both, or neither (fusion lifted it from lower down). Every result was "
                   f"in at least one lane's top {split.candidate_depth()}, the fusion's candidates: see the table."),
            table_html(lanes)]))
    return [*parts, "</section>"]
