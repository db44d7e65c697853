"""What a bundle publishes beside the validated receipts: the comparisons (validated too), the HTML and Markdown
reports, and the exports for other tools (TREC and ranx runs and qrels, the original scores, per-query CSVs, MTEB
result files, summary.csv and summary.json with the bundle's own verdicts, the LaTeX table).

Everything here reads the staging directory only (the bundle copied its inputs there first). A split with two modes
or more is compared: a comparison the output directory held (staged beside the artifacts) is bundled as it is (it
must compare exactly the bundled modes); a split without one gets one computed with the default seed and counts
from the bundled (already validated) artifacts. Either way the validator checks it against the bundled rows and
aggregates before anything else is written. A split of one mode has no comparison, and CLAIMS.md says so.
"""

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.atomic import write_file, write_text_file
from harness.errors import RefusedError
from harness.evaluation.comparison.artifact import Procedure, comparison_document, comparison_name, document_bytes
from harness.evaluation.comparison.inputs import ModeInput, dataset_of, load_inputs
from harness.evaluation.gates.split_modes import present_modes, read_freeze
from harness.json_input import parse_document
from harness.publish.exports.exports import all_texts
from harness.publish.exports.summary_table import Verdict, split_comparison
from harness.publish.report.report import with_verification, write_files
from harness.publish.report.report_data import load_report_data
from harness.typed_commands import harness_command
from harness.validator.core.report import Report
from harness.validator.pipeline import validate_comparison

COMPARISON_REPORTS = "validation/comparisons"


class PublicationRefused(RefusedError):
    """A comparison to be bundled is not eligible under the validator."""


def _comparison(staging: Path, output_dir: Path, split: str, modes: tuple[str, ...]) -> tuple[Path, str]:
    """The comparison for `split` in the bundle's artifacts: staged from the output directory, or computed from the
    bundled artifacts."""
    artifacts = staging / "artifacts"
    name = comparison_name(dataset_of(artifacts, split), split)
    target, source = artifacts / name, output_dir / name  # where the staged copy came from, for the messages
    if target.is_file():
        fix = (f"rerun `{harness_command('compare', '--split', split, '--replace')}`, or remove it to let the bundle "
               "compute one")
        document = parse_document(target.read_bytes(), source, "comparison", "comparison", fix, PublicationRefused)
        compared = tuple(entry["mode"] for entry in document["inputs"])
        if compared != modes:
            raise PublicationRefused(f"{source} compares {', '.join(compared)}, but the bundle holds the {split} runs "
                                     f"of {', '.join(modes)}; {fix}")
        return target, "from the output directory"
    inputs = load_inputs(artifacts, split, modes)
    document = comparison_document(inputs, split, baseline=None, procedure=Procedure(),
                                   verdicts=dict.fromkeys(modes, "ELIGIBLE"))
    write_file(target, document_bytes(document))
    return target, "computed by the bundle (default seed and counts)"


def add_comparisons(staging: Path, output_dir: Path, splits: Sequence[str],
                    known: Mapping[str, Report]) -> list[dict[str, Any]]:
    (staging / COMPARISON_REPORTS).mkdir(parents=True)
    documents, refused = [], []
    for split in splits:
        modes = present_modes(staging / "artifacts", split)
        if len(modes) < 2:
            continue  # one mode: nothing to compare (CLAIMS.md says so)
        path, origin = _comparison(staging, output_dir, split, modes)
        report = validate_comparison(path, known=known)
        write_text_file(staging / COMPARISON_REPORTS / path.name.replace(".json", ".validation.json"),
            json.dumps({**report.to_dict(), "origin": origin}, indent=1, default=str) + "\n")
        if not report.eligible:
            failing = [check.line() for check in report.checks if check.status != "pass"]
            refused.append(f"{path.name} ({origin}): {report.verdict()}\n    " + "\n    ".join(failing[:6]))
        documents.append(json.loads(path.read_bytes()))
    if refused:
        raise PublicationRefused(f"not every comparison is eligible, so nothing was bundled; rerun `"
                                 f"{harness_command('compare', '--replace')}` on the bundled artifacts' output "
                                 "directory, or remove the stale comparison to let the bundle compute one\n"
                                 + "\n".join(refused))
    return documents


def add_exports_and_reports(staging: Path, splits: Sequence[str], known: Mapping[str, Report]) -> None:
    artifacts = staging / "artifacts"
    exports = staging / "exports"
    exports.mkdir()
    runs = {split: load_inputs(artifacts, split, present_modes(artifacts, split)) for split in splits}
    comparisons = {split: split_comparison(artifacts, split, inputs) for split, inputs in runs.items()}

    def judge(entry: ModeInput, _: dict[str, Any] | None) -> Verdict:
        report = known[entry.aggregate_sha256]
        return Verdict("ELIGIBLE" if report.eligible else "NOT ELIGIBLE",
                       "the validator, in this bundle, with every text re-embedded")

    for name, text in all_texts(runs, comparisons, judge).items():
        write_text_file(exports / name, text)
    data = with_verification(load_report_data(artifacts, validated=True, freeze=read_freeze(staging)), known)
    write_files(staging / "report.html", staging / "report.md", data)
