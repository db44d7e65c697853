"""The aggregate recomputed from the rows alone."""

import math
from collections import Counter
from typing import Any

from ..core.context import Context
from ..core.digests import sha256_file
from ..core.report import Report
from ..core.schemas import violation
from ..retrieval import ir_metrics
from .check_depth import check_depth_aggregate


def check_artifact_files(ctx: Context, report: Report) -> None:
    found = violation(ctx.aggregate, "aggregate")
    report.expect("aggregate.schema", found is None, "the aggregate matches aggregate.schema.json",
                  "no violation", found)
    report.equal("rows.sha256", ctx.aggregate.get("per_query_sha256"), sha256_file(ctx.rows_path),
                  f"sha256 of {ctx.rows_path.name} equals the aggregate's per_query_sha256")
    report.equal("rows.count", ctx.aggregate.get("row_count"), len(ctx.rows),
                 "row_count equals the number of rows")


def _repeated_top1(rows: list[dict[str, Any]]) -> dict[str, Any]:
    counts = Counter(row["ranked_doc_ids"][0] for row in rows if row["ranked_doc_ids"])
    if not counts:
        return {"doc_id": None, "count": 0, "frequency": 0.0}
    best = max(counts.values())
    doc_id = min(doc for doc, count in counts.items() if count == best)
    return {"doc_id": doc_id, "count": best, "frequency": best / len(rows)}


def check_aggregate(ctx: Context, report: Report) -> None:
    rows, metrics = ctx.rows, ctx.aggregate["metrics"]
    n = len(rows)
    means = {key: math.fsum(row["metrics"][key] for row in rows) / n for key in ir_metrics.KEYS}
    wrong = {key: (means[key], metrics.get(key)) for key in ir_metrics.KEYS
             if not ir_metrics.close(means[key], metrics.get(key))}
    report.expect("aggregate.metrics", not wrong, "each metric is the mean over every row (failures as zero)",
                  {k: v[0] for k, v in wrong.items()}, {k: v[1] for k, v in wrong.items()})
    latencies = [row["latency_ms"] for row in rows]
    latency = {"mean": math.fsum(latencies) / n, "p50": ir_metrics.nearest_rank(latencies, 0.5),
               "p95": ir_metrics.nearest_rank(latencies, 0.95), "max": max(latencies)}
    found = metrics.get("latency_ms", {})
    report.expect("aggregate.latency", all(ir_metrics.close(latency[k], found.get(k), 1e-9) for k in latency),
                  "latency mean, p50, p95 (nearest rank) and max recomputed", latency, found)
    report.equal("aggregate.failures", sum(row["error"] is not None for row in rows), metrics.get("failures"),
                 "failure count")
    counts = Counter(len(row["ranked_doc_ids"]) for row in rows)
    report.equal("aggregate.result_counts", {str(k): counts[k] for k in sorted(counts)},
                 metrics.get("result_count_distribution"), "result-count distribution")
    report.equal("aggregate.unique_docs", len({d for row in rows for d in row["ranked_doc_ids"]}),
                 metrics.get("unique_retrieved_docs"), "unique retrieved documents")
    report.equal("aggregate.repeated_top1", _repeated_top1(rows), metrics.get("repeated_top1"),
                 "most repeated top-1 document, count and frequency")
    check_depth_aggregate(ctx, report)
