"""The aggregate metrics of one run, computed from its rows alone."""

from collections import Counter
from collections.abc import Sequence
from typing import Any

from harness.evaluation.measures.latency import latency_summary
from harness.evaluation.measures.metrics import mean_metrics


def repeated_top1(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The document most often ranked first (ties: smallest doc_id), with its count and frequency."""
    counts = Counter(row["ranked_doc_ids"][0] for row in rows if row["ranked_doc_ids"])
    if not counts:
        return {"doc_id": None, "count": 0, "frequency": 0.0}
    doc_id, count = min(counts.items(), key=lambda item: (-item[1], item[0]))
    return {"doc_id": doc_id, "count": count, "frequency": count / len(rows)}


def aggregate_metrics(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Every metric averaged over every row; failed rows are in `rows` with zeros and count."""
    if not rows:
        raise ValueError("a run without rows has no aggregate")
    result_counts = Counter(len(row["ranked_doc_ids"]) for row in rows)
    return {
        **mean_metrics([row["metrics"] for row in rows]),
        "latency_ms": latency_summary([row["latency_ms"] for row in rows]),
        "failures": sum(row["error"] is not None for row in rows),
        "result_count_distribution": {str(n): result_counts[n] for n in sorted(result_counts)},
        "unique_retrieved_docs": len({doc_id for row in rows for doc_id in row["ranked_doc_ids"]}),
        "repeated_top1": repeated_top1(rows),
    }
