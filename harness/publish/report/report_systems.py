"""The report's "Systems compared" section (Markdown and HTML), from the comparisons between systems beside the
results: the runs, each pair with its status, the hypotheses and the one claim a confirmatory result allows."""

from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.evaluation.comparison.systems_artifact import systems_comparison_name
from harness.hashing import sha256_bytes
from harness.json_input import parse_document
from harness.publish.report.report_tables import Table
from harness.publish.text.markdown_text import inert
from harness.publish.text.report_text import (
    SPLIT_LABELS,
    SPLIT_ORDER,
    interval,
    optional,
    p_value,
    pair_label,
    signed,
    wins_ties_losses,
)
from harness.publish.text.systems_text import SYSTEMS_DOES_NOT, hypothesis_line, runs_line, superiority_claim


class SystemsReportInputError(HarnessError):
    """A comparison between systems beside the results is malformed."""


@dataclass(frozen=True)
class SystemsFile:
    path: Path
    raw: bytes  # as read, once: what the report shows and the validator checks
    document: dict[str, Any]


def load_systems(directory: Path, splits: list[str]) -> list[SystemsFile]:
    """The comparisons between systems of `splits` in `directory`, in split order."""
    loaded = []
    for split in sorted(splits, key=SPLIT_ORDER.index):
        path = directory / systems_comparison_name(split)
        if path.is_file():
            raw = path.read_bytes()
            loaded.append(SystemsFile(path, raw, parse_document(raw, path, "comparison between systems",
                                                                "systems-comparison", "compare again with --replace",
                                                                SystemsReportInputError)))
    return loaded


def _copy_checked(source: Path, target: Path, digest: str, comparison: Path, error: type[HarnessError]) -> None:
    if not source.is_file():
        raise error(f"{source}, which {comparison} read, is missing; restore it or compare again "
                    "(python -m harness compare --run ... --replace)")
    data = source.read_bytes()
    found = sha256_bytes(data)
    if found != digest:
        raise error(f"{source} has changed since {comparison} read it (sha256 {found}, recorded "
                    f"{digest}); compare again with --replace")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def stage_runs(document: dict[str, Any], source: Path, runs_dir: Path, error: type[HarnessError]) -> None:
    """Copy every file the comparison between systems at `source` read into `runs_dir`/NAME/, each checked against
    the digest the comparison records (else `error`, naming the file)."""
    inputs: dict[str, list[dict[str, Any]]] = {run["name"]: [] for run in document["runs"]}
    for entry in document["inputs"]:
        inputs[entry["run"]].append(entry)
    for run in document["runs"]:
        directory = source.parent / run["output_dir"]
        target = runs_dir / run["name"]
        for entry in inputs[run["name"]]:
            _copy_checked(directory / entry["aggregate"], target / entry["aggregate"], entry["aggregate_sha256"],
                          source, error)
            _copy_checked(directory / entry["rows"], target / entry["rows"], entry["rows_sha256"], source, error)
        if run["freeze"] is not None:
            _copy_checked(directory / run["freeze"]["file"], target / run["freeze"]["file"],
                          run["freeze"]["file_sha256"], source, error)


def systems_table(document: dict[str, Any]) -> Table:
    rows = []
    for comparison in document["comparisons"]:
        stats = comparison["metrics"]["ndcg_at_10"]
        rows.append([pair_label(comparison), comparison["status"], signed(stats["mean_difference"]),
                     interval(stats["ci_low"], stats["ci_high"], sign=True),
                     p_value(stats["randomization"]["p_value"]), p_value(stats["holm_p_value"]),
                     optional(stats["effect_size"]), wins_ties_losses(stats)])
    return Table(f"systems-{document['split']}", "nDCG@10 differences between systems, paired over the same queries",
                 ["difference", "status", "mean", "95% CI", "p (randomization)", "p (Holm)", "effect size d_z",
                  "wins / ties / losses"], rows)


def _sentences(document: dict[str, Any]) -> tuple[str, list[str], list[str]]:
    head = (f"{SPLIT_LABELS[document['split']]}, {document['query_count']} queries. Runs: {runs_line(document)}. "
            f"Scope: {document['scope']}.")
    hypotheses = [hypothesis_line(h) for h in document["hypotheses"]]
    claims = [claim for h in document["hypotheses"] if (claim := superiority_claim(document, h))]
    return head, hypotheses, claims


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
    lines += ["Every pair not named by a confirmatory hypothesis is exploratory. It does not show:", ""]
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
    parts.append("<p class=\"note\">Every pair not named by a confirmatory hypothesis is exploratory. It does not "
                 "show:</p><ul>" + "".join(f"<li>{escape(item)}</li>" for item in SYSTEMS_DOES_NOT) + "</ul>")
    return parts
