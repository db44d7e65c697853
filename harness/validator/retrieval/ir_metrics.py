"""The nine per-query metrics, written independently of the runner from the stated definitions.

gain(d) = 2^grade - 1 for grade > 0, else 0. nDCG@10 = DCG@10 / ideal DCG@10 with discount
log2(rank + 1). Recall@k = relevant in top k / relevant. MRR@10 = 1 / first relevant rank in the
top 10. MAP@10 = sum of precision at each relevant rank in the top 10 / min(relevant, 10).
Success@k = any relevant in the top k. Zero when nothing is relevant or the ranking is empty.
Recall@100 and nDCG@100 (`compute_depth`): the same definitions at k = 100, over a row's depth-100 ranking.
"""

import math
from typing import Any

KEYS = ("ndcg_at_10", "recall_at_1", "recall_at_5", "recall_at_10", "mrr_at_10", "map_at_10",
        "success_at_1", "success_at_5", "success_at_10")


DEPTH = 100
DEPTH_KEYS = ("recall_at_100", "ndcg_at_100")
MAX_GRADE = 1000  # 2^grade - 1 must be a finite float; relevance grades are small integers (SciFact's are 1)


def compute(ranking: list[str], qrels: dict[str, int]) -> dict[str, float]:
    """The metrics of `ranking`; ValueError for a relevance grade whose gain no float holds."""
    if any(grade > MAX_GRADE for grade in qrels.values()):
        raise ValueError(f"a relevance grade above {MAX_GRADE}: {max(qrels.values())}")
    relevant = {doc for doc, grade in qrels.items() if grade > 0}
    top10 = ranking[:10]
    hits = [doc in relevant for doc in top10]
    out = dict.fromkeys(KEYS, 0.0)
    if not relevant:
        return out
    gains = [(2.0 ** qrels[doc] - 1.0) if hit else 0.0 for doc, hit in zip(top10, hits, strict=True)]
    ideal = sorted((2.0 ** grade - 1.0 for grade in qrels.values() if grade > 0), reverse=True)[:10]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    out["ndcg_at_10"] = sum(g / math.log2(i + 2) for i, g in enumerate(gains)) / idcg
    for k in (1, 5, 10):
        found = sum(hits[:k])
        out[f"recall_at_{k}"] = found / len(relevant)
        out[f"success_at_{k}"] = 1.0 if found else 0.0
    first = next((i for i, hit in enumerate(hits) if hit), None)
    out["mrr_at_10"] = 0.0 if first is None else 1.0 / (first + 1)
    precisions = [sum(hits[: i + 1]) / (i + 1) for i, hit in enumerate(hits) if hit]
    out["map_at_10"] = sum(precisions) / min(len(relevant), 10)
    return out


def compute_depth(ranking: list[str], qrels: dict[str, int]) -> dict[str, float]:
    """Recall@100 and nDCG@100 of a depth-100 ranking; ValueError as `compute`."""
    if any(grade > MAX_GRADE for grade in qrels.values()):
        raise ValueError(f"a relevance grade above {MAX_GRADE}: {max(qrels.values())}")
    if len(set(ranking)) != len(ranking):
        raise ValueError("the ranking repeats a document")
    grades = [qrels.get(doc, 0) for doc in ranking[:DEPTH]]
    relevant = sum(grade > 0 for grade in qrels.values())
    if not relevant:
        return dict.fromkeys(DEPTH_KEYS, 0.0)
    ideal = sorted((grade for grade in qrels.values() if grade > 0), reverse=True)[:DEPTH]
    idcg = sum((2.0 ** g - 1.0) / math.log2(i + 2) for i, g in enumerate(ideal))
    dcg = sum((2.0 ** g - 1.0) / math.log2(i + 2) for i, g in enumerate(grades) if g > 0)
    return {"recall_at_100": sum(g > 0 for g in grades) / relevant, "ndcg_at_100": dcg / idcg}


def nearest_rank(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def close(a: Any, b: Any, tolerance: float = 1e-12) -> bool:
    return isinstance(a, int | float) and isinstance(b, int | float) and abs(a - b) <= tolerance
