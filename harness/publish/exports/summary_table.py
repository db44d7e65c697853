"""`summary.csv` and `summary.json`: one row per system, mode and split, for a leaderboard or a paper.

Each row holds every metric (the aggregate's mean), its bootstrap interval when the split's comparison exists
(blank, or null, without one), Recall@100 and nDCG@100 (blank, or null, for a run without depth-100 rankings; no
interval: comparisons hold the top-10 metrics), latency p50/p95, failures, the validator's verdict and who gave it,
and the digests that identify the run: fixture, configuration, store, aggregate and rows. A comparison is used only
when it was computed from exactly these aggregates (by digest); a stale one is refused, naming it and the fix.
"""

import csv
import io
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import RefusedError
from harness.evaluation.comparison.artifact import comparison_name
from harness.evaluation.comparison.inputs import METRICS, ModeInput
from harness.evaluation.measures.metrics import DEPTH_METRIC_KEYS
from harness.json_input import parse_document
from harness.typed_commands import harness_command

SUMMARY_CSV = "summary.csv"
SUMMARY_JSON = "summary.json"
SCHEMA = "scifact-harness/summary/1"
COLUMNS = ("system", "system_version", "mode", "split", "ir_datasets_id", "profile", "query_count",
           *(column for metric in METRICS for column in (metric, f"{metric}_ci_low", f"{metric}_ci_high")),
           *DEPTH_METRIC_KEYS, "ci_confidence", "latency_p50_ms", "latency_p95_ms", "failures", "verdict", "verdict_by",
           "fixture_sha256", "config_sha256", "store_sha256", "aggregate_sha256", "rows_sha256")


class StaleComparison(RefusedError):
    """The split's comparison was computed from other aggregates than those exported."""


@dataclass(frozen=True)
class Verdict:
    verdict: str  # ELIGIBLE, NOT ELIGIBLE, or not validated
    by: str  # who judged, in words


Judge = Callable[[ModeInput, "dict[str, Any] | None"], Verdict]


def split_comparison(directory: Path, split: str, inputs: Sequence[ModeInput]) -> dict[str, Any] | None:
    """The split's comparison in `directory`, when there is one; refused unless it compared exactly `inputs`."""
    path = directory / comparison_name(inputs[0].dataset, split)
    if not path.is_file():
        return None
    fix = (f"rerun `{harness_command('compare', '--split', split, '--replace')}` on {directory}, or remove "
           f"{path.name} to export without intervals")
    document = parse_document(path.read_bytes(), path, "comparison", "comparison", fix, StaleComparison)
    compared = {entry["mode"]: entry["aggregate_sha256"] for entry in document["inputs"]}
    exported = {entry.mode: entry.aggregate_sha256 for entry in inputs}
    if compared != exported:
        raise StaleComparison(f"{path} compares other runs than the {split} aggregates exported (modes "
                              f"{', '.join(compared)} against {', '.join(exported)}, by aggregate digest); {fix}")
    return document


def verdict_of_comparison(entry: ModeInput, comparison: dict[str, Any] | None) -> Verdict:
    """The verdict the validator gave when `compare` read the run; `not validated` without one."""
    if comparison is not None and comparison["inputs_validation"]["validated"]:
        return Verdict(comparison["inputs_validation"]["verdicts"][entry.mode],
                       "the validator, when `python -m harness compare` read the run")
    return Verdict("not validated", "nobody: run `python -m harness.validator` on the aggregate, or bundle the runs")


def _row(split: str, entry: ModeInput, comparison: dict[str, Any] | None, verdict: Verdict) -> dict[str, Any]:
    aggregate, receipt = entry.aggregate, entry.aggregate["receipt"]
    metrics = aggregate["metrics"]
    row: dict[str, Any] = {
        "system": receipt["system"]["name"], "system_version": receipt["system"]["version"], "mode": entry.mode,
        "split": split, "ir_datasets_id": receipt["corpus"].get("ir_datasets_id"),
        "profile": receipt["profile"]["name"], "query_count": aggregate["row_count"]}
    intervals = comparison["modes"][entry.mode] if comparison is not None else None
    for metric in METRICS:
        row[metric] = float(metrics[metric])
        row[f"{metric}_ci_low"] = intervals[metric]["ci_low"] if intervals else None
        row[f"{metric}_ci_high"] = intervals[metric]["ci_high"] if intervals else None
    row.update({key: float(metrics[key]) if key in metrics else None for key in DEPTH_METRIC_KEYS})
    row.update({
        "ci_confidence": comparison["procedure"]["confidence"] if comparison is not None else None,
        "latency_p50_ms": float(metrics["latency_ms"]["p50"]), "latency_p95_ms": float(metrics["latency_ms"]["p95"]),
        "failures": metrics["failures"], "verdict": verdict.verdict, "verdict_by": verdict.by,
        "fixture_sha256": receipt["corpus"]["fixture_sha256"], "config_sha256": receipt["retrieval"]["config_sha256"],
        "store_sha256": receipt["store"]["store_sha256"], "aggregate_sha256": entry.aggregate_sha256,
        "rows_sha256": entry.rows_sha256})
    return row


def summary_rows(runs: Mapping[str, Sequence[ModeInput]], comparisons: Mapping[str, dict[str, Any] | None],
                 judge: Judge) -> list[dict[str, Any]]:
    return [_row(split, entry, comparisons[split], judge(entry, comparisons[split]))
            for split, entries in runs.items() for entry in entries]


def _cell(value: Any) -> str:
    return "" if value is None else repr(value) if isinstance(value, float) else str(value)


def summary_texts(rows: Sequence[dict[str, Any]]) -> dict[str, str]:
    """summary.csv (a blank cell where there is no value) and summary.json (null there), the same rows."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows([_cell(row[column]) for column in COLUMNS] for row in rows)
    document = {"schema": SCHEMA, "columns": list(COLUMNS), "rows": list(rows),
                "means": "every metric is the receipt's mean over every query of the split; a failed query counts as "
                         "0; an interval is the comparison's bootstrap interval of that mean"}
    return {SUMMARY_CSV: buffer.getvalue(),
            SUMMARY_JSON: json.dumps(document, ensure_ascii=False, allow_nan=False, indent=1) + "\n"}
