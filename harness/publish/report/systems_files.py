"""Comparisons between systems beside the results, as the report reads them: each file read once, and every run it
read copied (digest-checked) where the validator looks for it, and validated there."""

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.atomic import write_file
from harness.errors import HarnessError
from harness.evaluation.comparison.systems_artifact import systems_comparison_name
from harness.evaluation.receipts.artifacts import output_dataset
from harness.hashing import sha256_bytes
from harness.json_input import parse_document
from harness.publish.text.report_text import SPLIT_ORDER
from harness.typed_commands import harness_command
from harness.validator.core.report import Report
from harness.validator.stored import Subject, validate_all


class SystemsReportInputError(HarnessError):
    """A comparison between systems beside the results is malformed."""


@dataclass(frozen=True)
class SystemsFile:
    path: Path
    raw: bytes  # as read, once: what the report shows and the validator checks
    document: dict[str, Any]


def load_systems(directory: Path, splits: list[str]) -> list[SystemsFile]:
    """The comparisons between systems of `splits` in `directory`, in split order."""
    loaded, dataset = [], output_dataset(directory)
    if dataset is None:
        return []
    for split in sorted(splits, key=SPLIT_ORDER.index):
        path = directory / systems_comparison_name(dataset, split)
        if path.is_file():
            raw = path.read_bytes()
            loaded.append(SystemsFile(path, raw, parse_document(raw, path, "comparison between systems",
                                                                "systems-comparison", "compare again with --replace",
                                                                SystemsReportInputError)))
    return loaded


def _copy_checked(source: Path, target: Path, digest: str, comparison: Path, error: type[HarnessError]) -> None:
    if not source.is_file():
        raise error(f"{source}, which {comparison} read, is missing; restore it or compare again "
                    f"({harness_command('compare', '--run', '...', '--replace')})")
    data = source.read_bytes()
    found = sha256_bytes(data)
    if found != digest:
        raise error(f"{source} has changed since {comparison} read it (sha256 {found}, recorded "
                    f"{digest}); compare again with --replace")
    target.parent.mkdir(parents=True, exist_ok=True)
    write_file(target, data)


def stage_runs(document: dict[str, Any], source: Path, runs_dir: Path, error: type[HarnessError]) -> None:
    """Copy every file the comparison between systems at `source` read into `runs_dir`/NAME/, each checked against
    the digest the comparison records (else `error`, naming the file)."""
    inputs: dict[str, list[dict[str, Any]]] = {run["name"]: [] for run in document["runs"]}
    for entry in document["inputs"]:
        inputs[entry["run"]].append(entry)
    for run in document["runs"]:
        directory = Path(os.path.normpath(source.parent / run["output_dir"]))
        target = runs_dir / run["name"]
        for entry in inputs[run["name"]]:
            _copy_checked(directory / entry["aggregate"], target / entry["aggregate"], entry["aggregate_sha256"],
                          source, error)
            _copy_checked(directory / entry["rows"], target / entry["rows"], entry["rows_sha256"], source, error)
        if run["freeze"] is not None:
            _copy_checked(directory / run["freeze"]["file"], target / run["freeze"]["file"],
                          run["freeze"]["file_sha256"], source, error)


def validate_staged_runs(document: dict[str, Any], source: Path, runs_dir: Path,
                         known: Mapping[str, Report]) -> dict[str, Report]:
    """Every run `stage_runs` copied into `runs_dir`/NAME/, validated as those copies, with the fixture and store
    found where its own output directory's locations.json places them (the receipts name no place); the reports by
    the aggregate's sha256, `known` ones kept, for the comparison's validation."""
    reports = dict(known)
    pending = []
    for run in document["runs"]:
        home, target = Path(os.path.normpath(source.parent / run["output_dir"])), runs_dir / run["name"]
        freeze = None if run["freeze"] is None else target / run["freeze"]["file"]
        pending += [(entry["aggregate_sha256"], Subject(target / entry["aggregate"], target / entry["rows"], freeze,
                                                        home))
                    for entry in document["inputs"] if entry["run"] == run["name"]
                    and entry["aggregate_sha256"] not in reports]
    found = validate_all([subject for _, subject in pending])
    reports.update({digest: report for (digest, _), report in zip(pending, found, strict=True)})
    return reports
