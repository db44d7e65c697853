"""Comparisons between systems in a bundle: each `scifact-systems-<split>.json` the output directory holds is staged
with every run it read (`artifacts/runs/<name>/`: the aggregates, rows and freeze record, each checked against the
digest the comparison records), then validated from those staged bytes. The validator finds the runs there."""

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.atomic import write_file, write_text_file
from harness.errors import RefusedError
from harness.evaluation.comparison.systems_artifact import systems_comparison_name
from harness.evaluation.receipts.artifacts import output_dataset
from harness.hashing import sha256_bytes
from harness.json_input import parse_document
from harness.publish.report.systems_files import stage_runs, validate_staged_runs
from harness.typed_commands import harness_command
from harness.validator.core.report import Report
from harness.validator.pipeline import validate_comparison

RUNS = "runs"  # beside the comparison, where the validator looks for each run's files
REPORTS = "validation/comparisons"


class SystemsPublicationRefused(RefusedError):
    """A comparison between systems cannot be bundled: a run's file changed, it does not compare this evaluation, or
    the validator does not find it eligible."""


def stage_systems(output_dir: Path, staging: Path, splits: Sequence[str], freeze_sha256: str) -> list[Path]:
    """Stage each comparison between systems of `splits` in `output_dir`, with its runs; the staged comparisons.
    Each must compare this evaluation (a run under the bundled freeze, or for calibration, these receipts)."""
    artifacts, staged, dataset = staging / "artifacts", [], output_dataset(output_dir)
    if dataset is None:
        return []
    for split in splits:
        source = output_dir / systems_comparison_name(dataset, split)
        if not source.is_file():
            continue
        raw = source.read_bytes()
        fix = "compare again: " + harness_command("compare", "--split", split, "--run", "...", "--output-dir",
                                                  output_dir, "--replace")
        document = parse_document(raw, source, "comparison between systems", "systems-comparison", fix,
                                  SystemsPublicationRefused)
        bundled = {entry["aggregate_sha256"] for entry in document["inputs"]} & {
            sha256_bytes(p.read_bytes()) for p in artifacts.glob(f"{dataset}-*-{split}.aggregate.json")}
        if not bundled:
            raise SystemsPublicationRefused(f"{source} compares no run of this evaluation (freeze {freeze_sha256}): "
                                            f"its receipts are not the bundled ones; {fix}")
        stage_runs(document, source, artifacts / RUNS, SystemsPublicationRefused)
        write_file(artifacts / source.name, raw)
        staged.append(artifacts / source.name)
    return staged


def validate_systems(staging: Path, staged: Sequence[Path], known: Mapping[str, Report],
                     output_dir: Path) -> list[dict[str, Any]]:
    """Each staged comparison between systems through the validator, its staged runs first (each placed by its own
    output directory's locations.json); refused unless every one is eligible."""
    (staging / REPORTS).mkdir(parents=True, exist_ok=True)
    documents, refused = [], []
    for path in staged:
        document = json.loads(path.read_bytes())
        known = validate_staged_runs(document, output_dir / path.name, path.parent / RUNS, known)
        report = validate_comparison(path, known=known)
        write_text_file(staging / REPORTS / path.name.replace(".json", ".validation.json"),
            json.dumps(report.to_dict(), indent=1, default=str) + "\n")
        if not report.eligible:
            failing = [check.line() for check in report.checks if check.status != "pass"]
            refused.append(f"{path.name}: {report.verdict()}\n    " + "\n    ".join(failing[:6]))
        documents.append(document)
    if refused:
        raise SystemsPublicationRefused("not every comparison between systems is eligible, so nothing was bundled\n"
                                        + "\n".join(refused))
    return documents
