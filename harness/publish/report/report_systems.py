"""The report's "Systems compared" section (Markdown and HTML), from the comparisons between systems beside the
results: the runs, each pair with its status, the hypotheses with what decides each, and the claim each confirmatory,
supported one allows."""

from html import escape
from typing import Any

from harness.publish.report.report_tables import Table
from harness.publish.report.systems_files import SystemsFile
from harness.publish.text.embedding_words import pair_models, several_fixtures
from harness.publish.text.markdown_text import inert
from harness.publish.text.report_text import (
    SPLIT_LABELS,
    interval,
    optional,
    p_value,
    pair_label,
    signed,
    wins_ties_losses,
)
from harness.publish.text.systems_text import (
    SYSTEMS_DOES_NOT,
    fixtures_line,
    hypothesis_lines,
    runs_line,
    status_words,
    superiority_claims,
)

EXPLORATORY = ("Every pair not named by a confirmatory hypothesis is exploratory, and the table's Holm column, over "
               "every pair of the file, is an exploratory reading of every pair: a hypothesis is decided by its "
               "declared test, Holm-adjusted over its family, as its line says.")


def systems_table(document: dict[str, Any]) -> Table:
    """One row per pair; with each arm's embedding model (a / b) beside it when the runs read several fixtures."""
    rows = []
    for comparison in document["comparisons"]:
        stats = comparison["metrics"]["ndcg_at_10"]
        models = pair_models(document, comparison)
        rows.append([pair_label(comparison), *([] if models is None else [models]), status_words(comparison["status"]),
                     signed(stats["mean_difference"]), interval(stats["ci_low"], stats["ci_high"], sign=True),
                     p_value(stats["randomization"]["p_value"]), p_value(stats["holm_p_value"]),
                     optional(stats["effect_size"]), wins_ties_losses(stats)])
    embeddings = several_fixtures(document)
    return Table(f"systems-{document['split']}", "nDCG@10 differences between systems, paired over the same queries",
                 ["difference", *(["embedding models (a / b)"] if embeddings else []), "status", "mean", "95% CI",
                  "p (randomization, two-sided)", "p (Holm over every pair: exploratory)", "effect size d_z",
                  "wins / ties / losses"], rows, text_columns=(1, 2) if embeddings else (1,))


def _sentences(document: dict[str, Any]) -> tuple[str, list[str], list[str]]:
    fixtures = fixtures_line(document)
    head = (f"{SPLIT_LABELS[document['split']]}, {document['query_count']} queries. Runs: {runs_line(document)}. "
            f"Scope: {document['scope']}.{'' if fixtures is None else f' Fixtures: {fixtures}.'}")
    return head, hypothesis_lines(document), superiority_claims(document)


def systems_markdown(files: list[SystemsFile], table_markdown: Any) -> list[str]:
    if not files:
        return []
    lines = ["## Systems compared", ""]
    for document in (f.document for f in files):
        head, hypotheses, claims = _sentences(document)
        lines += [inert(head), "", *table_markdown(systems_table(document))]
        lines += [f"- Hypothesis {inert(h)}" for h in hypotheses]
        lines += [f"- Claim: {inert(c)}" for c in claims]
        lines += [""] if hypotheses or claims else []
    lines += [f"{EXPLORATORY} It does not show:", ""]
    return [*lines, *[f"- {item}" for item in SYSTEMS_DOES_NOT], ""]


def systems_html(files: list[SystemsFile], table_html: Any) -> list[str]:
    if not files:
        return []
    parts = ["<h2 id=\"systems\">Systems compared</h2>"]
    for document in (f.document for f in files):
        head, hypotheses, claims = _sentences(document)
        parts += [f"<p>{escape(head)}</p>", table_html(systems_table(document))]
        items = [f"<li>Hypothesis {escape(h)}</li>" for h in hypotheses]
        items += [f"<li><strong>Claim:</strong> {escape(c)}</li>" for c in claims]
        if items:
            parts.append("<ul>" + "".join(items) + "</ul>")
    parts.append(f"<p class=\"note\">{escape(EXPLORATORY)} It does not show:</p><ul>"
                 + "".join(f"<li>{escape(item)}</li>" for item in SYSTEMS_DOES_NOT) + "</ul>")
    return parts
