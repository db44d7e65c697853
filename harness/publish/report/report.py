"""`python -m harness report`: the HTML report and its Markdown version, from validated artifacts only.

Every file is read once; each aggregate of each split shown, and each comparison, goes through the independent
validator first, as a private snapshot of the very bytes rendered (an aggregate's stored verdict, in the output
directory's validation/ folder, is reused while those bytes and the validator are unchanged); one that is not
ELIGIBLE stops the report, naming it. `--unvalidated` skips the validator and stamps the title.
"""

import tempfile
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from harness.atomic import write_all_atomic, write_file
from harness.errors import RefusedError
from harness.evaluation.comparison.snapshot import write_snapshot
from harness.evaluation.gates.split_modes import read_freeze
from harness.publish.report.plotting import require_plotting
from harness.publish.report.report_data import ReportData, load_report_data
from harness.publish.report.report_html import render_html
from harness.publish.report.report_markdown import render_markdown
from harness.publish.report.systems_files import stage_runs, validate_staged_runs
from harness.publish.text.lane_words import lane_words
from harness.typed_commands import validator_command
from harness.validator.core.report import Report
from harness.validator.pipeline import validate_comparison
from harness.validator.stored import Subject, validate_all


class ReportRefused(RefusedError):
    """An artifact the report would show is not eligible, or the report exists already."""


def validate_artifacts(data: ReportData, known: Mapping[str, Report] | None = None) -> dict[str, Report]:
    """Every aggregate and comparison of `data` through the validator, as the bytes `data` was read from (a private
    snapshot, checked against the freeze record read with them); refused unless all are eligible."""
    reports = dict(known or {})
    problems = []
    with tempfile.TemporaryDirectory(prefix="scifact-report-") as directory:
        snapshot = Path(directory)
        for split in data.splits:
            frozen = write_snapshot(snapshot, split.inputs, data.freeze_file)
            pending = [entry for entry in split.inputs if entry.aggregate_sha256 not in reports]
            found = validate_all([Subject(snapshot / entry.aggregate_path.name, freeze=frozen,
                                          home=entry.aggregate_path.parent) for entry in pending])
            reports.update({entry.aggregate_sha256: report for entry, report in zip(pending, found, strict=True)})
            for entry in split.inputs:
                report = reports[entry.aggregate_sha256]
                if not report.eligible:
                    problems.append(f"{entry.aggregate_path.name}: {report.verdict()}")
            if split.comparison_path is not None and split.comparison_bytes is not None:
                copy = snapshot / split.comparison_path.name
                write_file(copy, split.comparison_bytes)
                report = validate_comparison(copy, known=reports)
                if not report.eligible:
                    failing = ", ".join(c.name for c in report.checks if c.status != "pass")
                    problems.append(f"{split.comparison_path.name}: {report.verdict()} ({failing})")
        for index, shown in enumerate(data.systems):
            place = snapshot / f"systems-{index}"
            stage_runs(shown.document, shown.path, place / "runs", ReportRefused)
            write_file(place / shown.path.name, shown.raw)
            reports = validate_staged_runs(shown.document, shown.path, place / "runs", reports)
            report = validate_comparison(place / shown.path.name, known=reports)
            if not report.eligible:
                failing = ", ".join(c.name for c in report.checks if c.status != "pass")
                problems.append(f"{shown.path.name}: {report.verdict()} ({failing})")
    if problems:
        raise ReportRefused(f"{len(problems)} artifact(s) are not ELIGIBLE under the validator, and the report shows "
                            f"validated artifacts only: fix what `{validator_command()}` reports, or pass "
                            "--unvalidated for a report stamped UNVALIDATED\n" + "\n".join(problems))
    return reports


def _provenance_notes(reports: list[Report]) -> list[str]:
    """The dataset and the vectors as the validator established them, once each, in words."""
    notes = []
    for report in reports:
        dataset, embedder = report.notes.get("dataset"), report.notes.get("embedding_verification")
        if dataset:
            notes.append(f"Dataset: {dataset['title']} ({dataset['scope']}), held to the validator's own pins; "
                         f"archive {report.notes.get('archive', 'not re-derived')}.")
        if embedder:
            through = embedder.get("server") or embedder["embedder"]
            notes.append(f"Vectors verified by re-embedding with {embedder['model']} through {through} (the "
                         "verifier's embedder, never an endpoint the fixture names).")
    return list(dict.fromkeys(notes))


def with_verification(data: ReportData, reports: Mapping[str, Report]) -> ReportData:
    """`data` with each shown aggregate's lane-by-lane verification from its validator report, and the dataset and
    vectors as the validator established them."""
    shown = [entry.aggregate_sha256 for split in data.splits for entry in split.inputs]
    return replace(data, verification={sha: lane_words(reports[sha].to_dict())
                                       for sha in shown if sha in reports},
                   notes=[*data.notes, *_provenance_notes([reports[sha] for sha in shown if sha in reports])])


def render(data: ReportData) -> tuple[str, str]:
    return render_html(data), render_markdown(data)


def write_files(html_path: Path, markdown_path: Path, data: ReportData) -> None:
    html, markdown = render(data)
    write_all_atomic({html_path: html.encode("utf-8"), markdown_path: markdown.encode("utf-8")})


def write_report(output_dir: Path, html_path: Path, markdown_path: Path, *, validated: bool, replace: bool,
                 known: Mapping[str, Report] | None = None) -> dict[str, Any]:
    """Validate (unless `validated` is False), render and write both files; `known` holds validator reports this
    process made already, by aggregate sha256."""
    require_plotting("report")
    existing = [str(p) for p in (html_path, markdown_path) if p.exists()]
    if existing and not replace:
        raise ReportRefused(f"{', '.join(existing)} already exist(s); a report is never overwritten silently: use "
                            "--replace, or another --out")
    data = load_report_data(output_dir, validated=validated, freeze=read_freeze(output_dir))
    if validated:
        data = with_verification(data, validate_artifacts(data, known))
    write_files(html_path, markdown_path, data)
    return {"validated": validated, "splits": [s.split for s in data.splits],
            "comparisons": [(s.split, c) for s in data.splits if s.comparison for c in s.comparison["comparisons"]]}
