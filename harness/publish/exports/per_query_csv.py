"""One CSV per split: a line per query and mode with every metric, as the rows state them (full precision); Recall@100
and nDCG@100 blank for rows without a depth-100 ranking."""

import csv
import io
from collections.abc import Sequence
from typing import Any

from harness.evaluation.comparison.inputs import METRICS
from harness.evaluation.measures.metrics import DEPTH_METRIC_KEYS

COLUMNS = ("query_id", "mode", "split", *METRICS, *DEPTH_METRIC_KEYS, "latency_ms", "failed")


def per_query_name(dataset: str, split: str) -> str:
    return f"{dataset}-per-query-{split}.csv"


def per_query_text(runs: Sequence[tuple[str, Sequence[dict[str, Any]]]]) -> str:
    """`runs` is (mode, rows) per mode; lines are grouped by mode, queries in split order."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    for mode, rows in runs:
        for row in rows:
            metrics = row["metrics"]
            writer.writerow([row["query_id"], mode, row["split"], *(repr(float(metrics[m])) for m in METRICS),
                             *(repr(float(metrics[m])) if m in metrics else "" for m in DEPTH_METRIC_KEYS),
                             repr(float(row["latency_ms"])), "true" if row["error"] is not None else "false"])
    return buffer.getvalue()
