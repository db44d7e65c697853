"""The nine per-query metrics, written independently of the runner from the stated definitions, under the metric
conventions of the validator's own pins (`Conventions`; trec_eval's, `TREC_EVAL`, for a dataset it holds no pins
for).

A grade > 0 is relevant; a grade <= 0 (negative ones too) gains nothing, in the ranking and in the ideal, as in
trec_eval. gain(d) = the grade itself (ndcg_gain "grade": trec_eval's ndcg_cut) or 2^grade - 1 ("exponential").
nDCG@10 = DCG@10 / ideal DCG@10 with discount log2(rank + 1). Recall@k = relevant in top k / relevant.
MRR@10 = 1 / first relevant rank in the top 10. MAP@10 = sum of precision at each relevant rank in the top 10 /
relevant (map_denominator "relevant": trec_eval's map_cut_10) or / min(relevant, 10) ("relevant_within_k").
Success@k = any relevant in the top k. Zero when nothing is relevant or the ranking is empty.
Recall@100 and nDCG@100 (`compute_depth`): the same definitions at k = 100, over a row's depth-100 ranking.
"""

import math
from dataclasses import dataclass
from typing import Any

KEYS = ("ndcg_at_10", "recall_at_1", "recall_at_5", "recall_at_10", "mrr_at_10", "map_at_10",
        "success_at_1", "success_at_5", "success_at_10")


DEPTH = 100
DEPTH_KEYS = ("recall_at_100", "ndcg_at_100")
# 2^grade - 1 must be a finite float under the exponential gain; relevance grades are small integers (SciFact's are
# 1), so a larger one is refused under either gain
MAX_GRADE = 1000
NDCG_GAINS = ("grade", "exponential")
MAP_DENOMINATORS = ("relevant", "relevant_within_k")


@dataclass(frozen=True)
class Conventions:
    """How nDCG weighs a relevant grade and what MAP@10 divides by."""

    ndcg_gain: str
    map_denominator: str

    def __post_init__(self) -> None:
        if self.ndcg_gain not in NDCG_GAINS or self.map_denominator not in MAP_DENOMINATORS:
            raise ValueError(f"unknown metric conventions {self.record()}: ndcg_gain is one of {NDCG_GAINS}, "
                             f"map_denominator one of {MAP_DENOMINATORS}")

    @classmethod
    def of(cls, stated: Any) -> "Conventions":
        """The conventions a pins file's `measures` state (exactly ndcg_gain and map_denominator)."""
        if not isinstance(stated, dict) or set(stated) != {"ndcg_gain", "map_denominator"}:
            raise ValueError(f"measures must state exactly ndcg_gain and map_denominator, not {stated!r}")
        return cls(stated["ndcg_gain"], stated["map_denominator"])

    def record(self) -> dict[str, str]:
        return {"ndcg_gain": self.ndcg_gain, "map_denominator": self.map_denominator}

    def gain(self, grade: int) -> float:
        if grade <= 0:
            return 0.0
        return float(grade) if self.ndcg_gain == "grade" else 2.0 ** grade - 1.0


TREC_EVAL = Conventions("grade", "relevant")


def _check_grades(qrels: dict[str, int]) -> None:
    if any(grade > MAX_GRADE for grade in qrels.values()):
        raise ValueError(f"a relevance grade above {MAX_GRADE}: {max(qrels.values())}")


def _ndcg(grades: list[int], qrels: dict[str, int], k: int, conventions: Conventions) -> float:
    """nDCG@k of the ranked documents' grades; some judged grade is relevant, so the ideal DCG is not zero."""
    ideal = sorted((conventions.gain(g) for g in qrels.values()), reverse=True)[:k]
    idcg = sum(gain / math.log2(i + 2) for i, gain in enumerate(ideal))
    return sum(conventions.gain(g) / math.log2(i + 2) for i, g in enumerate(grades[:k])) / idcg


def compute(ranking: list[str], qrels: dict[str, int], conventions: Conventions) -> dict[str, float]:
    """The metrics of `ranking`; ValueError for a relevance grade whose gain no float holds."""
    _check_grades(qrels)
    relevant = {doc for doc, grade in qrels.items() if grade > 0}
    top10 = ranking[:10]
    hits = [doc in relevant for doc in top10]
    out = dict.fromkeys(KEYS, 0.0)
    if not relevant:
        return out
    out["ndcg_at_10"] = _ndcg([qrels.get(doc, 0) for doc in top10], qrels, 10, conventions)
    for k in (1, 5, 10):
        found = sum(hits[:k])
        out[f"recall_at_{k}"] = found / len(relevant)
        out[f"success_at_{k}"] = 1.0 if found else 0.0
    first = next((i for i, hit in enumerate(hits) if hit), None)
    out["mrr_at_10"] = 0.0 if first is None else 1.0 / (first + 1)
    precisions = [sum(hits[: i + 1]) / (i + 1) for i, hit in enumerate(hits) if hit]
    divisor = len(relevant) if conventions.map_denominator == "relevant" else min(len(relevant), 10)
    out["map_at_10"] = sum(precisions) / divisor
    return out


def compute_depth(ranking: list[str], qrels: dict[str, int], conventions: Conventions) -> dict[str, float]:
    """Recall@100 and nDCG@100 of a depth-100 ranking; ValueError as `compute`."""
    _check_grades(qrels)
    if len(set(ranking)) != len(ranking):
        raise ValueError("the ranking repeats a document")
    grades = [qrels.get(doc, 0) for doc in ranking[:DEPTH]]
    relevant = sum(grade > 0 for grade in qrels.values())
    if not relevant:
        return dict.fromkeys(DEPTH_KEYS, 0.0)
    return {"recall_at_100": sum(g > 0 for g in grades) / relevant,
            "ndcg_at_100": _ndcg(grades, qrels, DEPTH, conventions)}


def nearest_rank(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def close(a: Any, b: Any, tolerance: float = 1e-12) -> bool:
    return isinstance(a, int | float) and isinstance(b, int | float) and abs(a - b) <= tolerance
