"""Per-query retrieval metrics: pure functions of (ranked doc ids, qrels, the declared conventions). No I/O, no
rounding.

Conventions (tested against trec_eval through pytrec_eval and ir_measures):
- a document is relevant when its grade is > 0; unjudged documents have grade 0; a grade <= 0 (negative ones
  too) gains nothing, in the ranking and in the ideal alike, as in trec_eval;
- ranks start at 1; only the first k ranked ids count toward a metric at k;
- nDCG@k: the gain of a relevant grade g is what the contract declares (`Contract.measures["ndcg_gain"]`): "grade",
  g itself (trec_eval's ndcg_cut, pytrec_eval, BEIR, MTEB), or "exponential", 2^g - 1; discount log2(rank + 1),
  divided by the ideal DCG of the judged grades;
- Recall@k: relevant documents in the top k / all relevant documents;
- MRR@10: 1 / rank of the first relevant document in the top 10, else 0;
- MAP@10: sum of precision@rank at each relevant rank in the top 10, divided as the contract declares
  (`measures["map_denominator"]`): "relevant", every relevant document (trec_eval's map_cut_10), or
  "relevant_within_k", min(|relevant|, 10);
- Success@k: 1 if any relevant document is in the top k, else 0;
- a query with no relevant document scores 0 on every metric; an empty ranking scores 0.
Under "grade" and "relevant" (the shipped contracts' declaration) these are trec_eval's ndcg_cut_10, recall_k,
recip_rank (cut at 10), map_cut_10 and success_k on any judgements; on binary grades with at most 10 relevant
documents per query (SciFact) the two conventions of each give the same numbers.

Recall@100 and nDCG@100 (`depth_metrics`) are the same definitions at k = 100, over the row's depth-100
ranking (a diagnostic beside the top-10 claim, harness/evaluation/depth_ranking.py); under the same declaration
they equal trec_eval's recall_100 and ndcg_cut_100 over that ranking.
"""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from harness.corpus.contract import MEASURE_CONVENTIONS

METRIC_KEYS = (
    "ndcg_at_10", "recall_at_1", "recall_at_5", "recall_at_10", "mrr_at_10",
    "map_at_10", "success_at_1", "success_at_5", "success_at_10",
)
DEPTH = 100  # the depth of the diagnostic ranking, and the k of its metrics
DEPTH_METRIC_KEYS = ("recall_at_100", "ndcg_at_100")


@dataclass(frozen=True)
class Conventions:
    """The metric conventions a contract declares (`Contract.measures`); each value one MEASURE_CONVENTIONS names."""

    ndcg_gain: str
    map_denominator: str

    def __post_init__(self) -> None:
        for key, allowed in MEASURE_CONVENTIONS.items():
            if getattr(self, key) not in allowed:
                raise ValueError(f"measures.{key} is {getattr(self, key)!r}; it must be one of {allowed}")

    @classmethod
    def declared(cls, measures: Mapping[str, str]) -> "Conventions":
        """The conventions a contract's `measures` state, every one of them and nothing else."""
        if set(measures) != set(MEASURE_CONVENTIONS):
            raise ValueError(f"measures must state exactly {sorted(MEASURE_CONVENTIONS)}, not {sorted(measures)}")
        return cls(ndcg_gain=measures["ndcg_gain"], map_denominator=measures["map_denominator"])

    def record(self) -> dict[str, str]:
        return {"ndcg_gain": self.ndcg_gain, "map_denominator": self.map_denominator}


def _check_unique(ranking: Sequence[str]) -> None:
    if len(set(ranking)) != len(ranking):
        raise ValueError("a ranking lists some document more than once; metrics need unique ids")


def _relevant(qrels: Mapping[str, int]) -> set[str]:
    return {doc_id for doc_id, grade in qrels.items() if grade > 0}


def _gain(grade: int, conventions: Conventions) -> float:
    """The gain of a relevant grade (> 0); a grade <= 0 is never summed, in the ranking or in the ideal."""
    return float(grade) if conventions.ndcg_gain == "grade" else float(2**grade - 1)


def ndcg_at_k(ranking: Sequence[str], qrels: Mapping[str, int], k: int, conventions: Conventions) -> float:
    _check_unique(ranking)
    gains = sorted((_gain(grade, conventions) for grade in qrels.values() if grade > 0), reverse=True)[:k]
    ideal = sum(gain / math.log2(rank + 1) for rank, gain in enumerate(gains, start=1))
    if ideal == 0:
        return 0.0
    dcg = sum(
        _gain(qrels[doc_id], conventions) / math.log2(rank + 1)
        for rank, doc_id in enumerate(ranking[:k], start=1)
        if qrels.get(doc_id, 0) > 0
    )
    return dcg / ideal


def recall_at_k(ranking: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    _check_unique(ranking)
    relevant = _relevant(qrels)
    return len(relevant.intersection(ranking[:k])) / len(relevant) if relevant else 0.0


def mrr_at_k(ranking: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    _check_unique(ranking)
    relevant = _relevant(qrels)
    return next((1.0 / rank for rank, doc_id in enumerate(ranking[:k], start=1) if doc_id in relevant), 0.0)


def map_at_k(ranking: Sequence[str], qrels: Mapping[str, int], k: int, conventions: Conventions) -> float:
    _check_unique(ranking)
    relevant = _relevant(qrels)
    if not relevant:
        return 0.0
    hits, total = 0, 0.0
    for rank, doc_id in enumerate(ranking[:k], start=1):
        if doc_id in relevant:
            hits += 1
            total += hits / rank
    return total / (len(relevant) if conventions.map_denominator == "relevant" else min(len(relevant), k))


def success_at_k(ranking: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    _check_unique(ranking)
    return 1.0 if _relevant(qrels).intersection(ranking[:k]) else 0.0


def query_metrics(ranking: Sequence[str], qrels: Mapping[str, int], conventions: Conventions) -> dict[str, float]:
    return {
        "ndcg_at_10": ndcg_at_k(ranking, qrels, 10, conventions),
        "recall_at_1": recall_at_k(ranking, qrels, 1),
        "recall_at_5": recall_at_k(ranking, qrels, 5),
        "recall_at_10": recall_at_k(ranking, qrels, 10),
        "mrr_at_10": mrr_at_k(ranking, qrels, 10),
        "map_at_10": map_at_k(ranking, qrels, 10, conventions),
        "success_at_1": success_at_k(ranking, qrels, 1),
        "success_at_5": success_at_k(ranking, qrels, 5),
        "success_at_10": success_at_k(ranking, qrels, 10),
    }


def depth_metrics(ranking: Sequence[str], qrels: Mapping[str, int], conventions: Conventions) -> dict[str, float]:
    """Recall@100 and nDCG@100 of a depth-100 ranking."""
    return {"recall_at_100": recall_at_k(ranking, qrels, DEPTH),
            "ndcg_at_100": ndcg_at_k(ranking, qrels, DEPTH, conventions)}


def mean_metrics(per_query: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Mean over every selected query; a failed query is passed in with its zeros, never dropped. Recall@100 and
    nDCG@100 are averaged when every query has them (rows with a depth-100 ranking), and left out otherwise."""
    if not per_query:
        raise ValueError("no queries to average")
    keys = METRIC_KEYS + tuple(key for key in DEPTH_METRIC_KEYS if all(key in row for row in per_query))
    return {key: math.fsum(row[key] for row in per_query) / len(per_query) for key in keys}
