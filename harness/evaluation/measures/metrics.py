"""Per-query retrieval metrics: pure functions of (ranked doc ids, qrels, the declared conventions). No I/O, no
rounding. These are the harness's one definition of each measure: the receipts' nine metrics and the depth-100 two
(`query_metrics`, `depth_metrics`), and every measure named as ir_measures names it (`named.py`), are computed here.

Conventions (tested against trec_eval through pytrec_eval and ir_measures):
- a document is relevant when its grade is >= rel, the relevance threshold (1 unless a measure's name says
  `(rel=2)`: then grade > 0, trec_eval's default); unjudged documents have no grade and are never relevant; a grade
  <= 0 (negative ones too) gains nothing, in the ranking and in the ideal alike, as in trec_eval;
- ranks start at 1; only the first k ranked ids count toward a metric at k (k None: the whole ranking);
- nDCG@k: the gain of a relevant grade g is what the contract declares (`Contract.measures["ndcg_gain"]`): "grade",
  g itself (trec_eval's ndcg_cut, pytrec_eval, BEIR, MTEB), or "exponential", 2^g - 1; discount log2(rank + 1),
  divided by the ideal DCG of the judged grades (every grade > 0, whatever rel);
- P@k: relevant documents in the top k / k, even when fewer than k are ranked (trec_eval's P.k);
- Recall@k: relevant documents in the top k / all relevant documents;
- RR@k (MRR@10): 1 / rank of the first relevant document in the top k, else 0;
- AP@k (MAP@10): sum of precision@rank at each relevant rank in the top k, divided as the contract declares
  (`measures["map_denominator"]`): "relevant", every relevant document (trec_eval's map_cut), or
  "relevant_within_k", min(|relevant|, k);
- Success@k: 1 if any relevant document is in the top k, else 0;
- Judged@k: the share of the top k that has a judgement, whatever its grade, over min(k, ranked) documents (as
  ir_measures computes it);
- a query with no relevant document scores 0 on every metric but Judged; an empty ranking scores 0 on all.
Under "grade" and "relevant" (the shipped contracts' declaration) these are trec_eval's ndcg_cut, P, recall,
map_cut and success, and ir_measures' RR@k and Judged@k, on any judgements; on binary grades with at most k relevant
documents per query (SciFact at k = 10) the two conventions of each give the same numbers.

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


TREC_EVAL = Conventions("grade", "relevant")  # the shipped contracts' declaration, trec_eval's
_LOG2 = [math.log2(rank + 1) for rank in range(1025)]  # log2(rank + 1), by rank; computed beyond


def _log2(rank: int) -> float:
    return _LOG2[rank] if rank < len(_LOG2) else math.log2(rank + 1)


class Graded:
    """A ranking as its judgements read it, made once per query: how many documents are ranked, the (rank, grade) of
    each judged one in rank order, every judged grade, and what each threshold and gain derive from them, found when
    first asked. `unique`: the caller vouches that no document is ranked twice (a ranking from `trec_order`)."""

    __slots__ = ("_hits", "_ideal", "_relevant", "judged", "pairs", "ranked")

    def __init__(self, ranking: Sequence[str], qrels: Mapping[str, int], *, unique: bool = False) -> None:
        if not unique and len(set(ranking)) != len(ranking):
            raise ValueError("a ranking lists some document more than once; metrics need unique ids")
        self.ranked = len(ranking)
        if 8 * len(qrels) < len(ranking):  # few judgements: find each in the ranking
            index = ranking.index
            pairs = []
            for doc_id, grade in qrels.items():
                try:
                    pairs.append((index(doc_id) + 1, grade))
                except ValueError:
                    continue
            pairs.sort()
        else:
            pairs = [(rank, grade) for rank, grade in enumerate(map(qrels.get, ranking), start=1) if grade is not None]
        self.pairs: list[tuple[int, int]] = pairs
        self.judged = list(qrels.values())
        self._hits: dict[int, list[int]] = {}
        self._relevant: dict[int, int] = {}
        self._ideal: dict[str, list[float]] = {}

    def hits(self, rel: int) -> list[int]:
        """The ranks (from 1) of the relevant documents, grade >= rel, in rank order."""
        found = self._hits.get(rel)
        if found is None:
            found = self._hits[rel] = [rank for rank, grade in self.pairs if grade >= rel]
        return found

    def relevant(self, rel: int) -> int:
        """How many judged documents are relevant, grade >= rel."""
        count = self._relevant.get(rel)
        if count is None:
            count = self._relevant[rel] = sum(1 for grade in self.judged if grade >= rel)
        return count

    def ideal(self, conventions: Conventions) -> list[float]:
        """The gains of every judged grade > 0, best first."""
        gains = self._ideal.get(conventions.ndcg_gain)
        if gains is None:
            gains = self._ideal[conventions.ndcg_gain] = sorted(
                (_gain(grade, conventions) for grade in self.judged if grade > 0), reverse=True)
        return gains


def _within(hits: list[int], k: int | None) -> int:
    """How many of `hits` (ranks, ascending) are at rank k or better."""
    if k is None or not hits or hits[-1] <= k:
        return len(hits)
    return next(i for i, rank in enumerate(hits) if rank > k)


def _gain(grade: int, conventions: Conventions) -> float:
    """The gain of a relevant grade (> 0); a grade <= 0 is never summed, in the ranking or in the ideal."""
    return float(grade) if conventions.ndcg_gain == "grade" else float(2**grade - 1)


def ndcg(graded: Graded, k: int | None, conventions: Conventions) -> float:
    ideal = sum(gain / _log2(rank) for rank, gain in enumerate(graded.ideal(conventions)[:k], start=1))
    if ideal == 0:
        return 0.0
    dcg = sum(_gain(grade, conventions) / _log2(rank)
              for rank, grade in graded.pairs if grade > 0 and (k is None or rank <= k))
    return dcg / ideal


def precision(graded: Graded, k: int, rel: int = 1) -> float:
    return _within(graded.hits(rel), k) / k


def recall(graded: Graded, k: int | None, rel: int = 1) -> float:
    relevant = graded.relevant(rel)
    return _within(graded.hits(rel), k) / relevant if relevant else 0.0


def reciprocal_rank(graded: Graded, k: int | None, rel: int = 1) -> float:
    hits = graded.hits(rel)
    return 1.0 / hits[0] if hits and (k is None or hits[0] <= k) else 0.0


def average_precision(graded: Graded, k: int | None, conventions: Conventions, rel: int = 1) -> float:
    relevant = graded.relevant(rel)
    if not relevant:
        return 0.0
    hits = graded.hits(rel)
    total = sum(found / rank for found, rank in enumerate(hits[:_within(hits, k)], start=1))
    return total / (relevant if conventions.map_denominator == "relevant" or k is None else min(relevant, k))


def success(graded: Graded, k: int | None, rel: int = 1) -> float:
    hits = graded.hits(rel)
    return 1.0 if hits and (k is None or hits[0] <= k) else 0.0


def judged_share(graded: Graded, k: int | None) -> float:
    top = graded.ranked if k is None else min(k, graded.ranked)
    return sum(1 for rank, _ in graded.pairs if rank <= top) / top if top else 0.0


def ndcg_at_k(ranking: Sequence[str], qrels: Mapping[str, int], k: int, conventions: Conventions) -> float:
    return ndcg(Graded(ranking, qrels), k, conventions)


def query_metrics(ranking: Sequence[str], qrels: Mapping[str, int], conventions: Conventions) -> dict[str, float]:
    graded = Graded(ranking, qrels)
    return {
        "ndcg_at_10": ndcg(graded, 10, conventions),
        "recall_at_1": recall(graded, 1),
        "recall_at_5": recall(graded, 5),
        "recall_at_10": recall(graded, 10),
        "mrr_at_10": reciprocal_rank(graded, 10),
        "map_at_10": average_precision(graded, 10, conventions),
        "success_at_1": success(graded, 1),
        "success_at_5": success(graded, 5),
        "success_at_10": success(graded, 10),
    }


def depth_metrics(ranking: Sequence[str], qrels: Mapping[str, int], conventions: Conventions) -> dict[str, float]:
    """Recall@100 and nDCG@100 of a depth-100 ranking."""
    graded = Graded(ranking, qrels)
    return {"recall_at_100": recall(graded, DEPTH), "ndcg_at_100": ndcg(graded, DEPTH, conventions)}


def mean_metrics(per_query: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Mean over every selected query; a failed query is passed in with its zeros, never dropped. Recall@100 and
    nDCG@100 are averaged when every query has them (rows with a depth-100 ranking), and left out otherwise."""
    if not per_query:
        raise ValueError("no queries to average")
    keys = METRIC_KEYS + tuple(key for key in DEPTH_METRIC_KEYS if all(key in row for row in per_query))
    return {key: math.fsum(row[key] for row in per_query) / len(per_query) for key in keys}
