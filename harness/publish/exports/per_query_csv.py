"""One CSV per split: a line per query and mode with every metric, as the rows state them (full precision)."""

import csv
import io
from collections.abc import Sequence
from typing import Any

from harness.evaluation.comparison.inputs import METRICS

COLUMNS = ("query_id", "mode", "split", *METRICS, "latency_ms", "failed")


def per_query_name(split: str) -> str:
    return f"scifact-per-query-{split}.csv"


def per_query_text(runs: Sequence[tuple[str, Sequence[dict[str, Any]]]]) -> str:
    """`runs` is (mode, rows) per mode; lines are grouped by mode, queries in split order."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    for mode, rows in runs:
        for row in rows:
            writer.writerow([row["query_id"], mode, row["split"], *(repr(float(row["metrics"][m])) for m in METRICS),
                             repr(float(row["latency_ms"])), "true" if row["error"] is not None else "false"])
    return buffer.getvalue()
