"""The aggregate metrics of one run, computed from its rows alone."""

from collections import Counter
from collections.abc import Sequence
from typing import Any

from harness.evaluation.measures.latency import latency_summary
from harness.evaluation.measures.metrics import DEPTH, mean_metrics


def repeated_top1(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The document most often ranked first (ties: smallest doc_id), with its count and frequency."""
    counts = Counter(row["ranked_doc_ids"][0] for row in rows if row["ranked_doc_ids"])
    if not counts:
        return {"doc_id": None, "count": 0, "frequency": 0.0}
    doc_id, count = min(counts.items(), key=lambda item: (-item[1], item[0]))
    return {"doc_id": doc_id, "count": count, "frequency": count / len(rows)}


def depth_summary(rows: Sequence[dict[str, Any]], top_k: int) -> dict[str, Any] | None:
    """The depth-100 rankings of the rows (None when they carry none): how many depth searches failed, and how many
    answered rows' depth-100 lists do not begin with the claim's top-k ranking."""
    entries = [(row, row["depth_ranking"]) for row in rows if "depth_ranking" in row]
    if not entries:
        return None
    answered = [(row, entry) for row, entry in entries if row["error"] is None]
    return {"depth": DEPTH,
            "failures": sum(entry["error"] is not None for _, entry in answered),
            "top_k_prefix_differs": sum(entry["error"] is None and entry["doc_ids"][:top_k] != row["ranked_doc_ids"]
                                        for row, entry in answered)}


def aggregate_metrics(rows: Sequence[dict[str, Any]], top_k: int) -> dict[str, Any]:
    """Every metric averaged over every row; failed rows are in `rows` with zeros and count."""
    if not rows:
        raise ValueError("a run without rows has no aggregate")
    depth = depth_summary(rows, top_k)
    result_counts = Counter(len(row["ranked_doc_ids"]) for row in rows)
    return {
        **mean_metrics([row["metrics"] for row in rows]),
        "latency_ms": latency_summary([row["latency_ms"] for row in rows]),
        "failures": sum(row["error"] is not None for row in rows),
        "result_count_distribution": {str(n): result_counts[n] for n in sorted(result_counts)},
        "unique_retrieved_docs": len({doc_id for row in rows for doc_id in row["ranked_doc_ids"]}),
        "repeated_top1": repeated_top1(rows),
        **({} if depth is None else {"depth_ranking": depth}),
    }
