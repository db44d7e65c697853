"""The two retrieval lanes replayed for one query, exactly where possible, else within a rounding bound.

Exact: the engine's stated float32 arithmetic, reproduced here (dense: a float32 matrix-vector product
over the stored matrix, identical vectors sharing the first one's score; lexical: see bm25.py). When
every score a run reports equals that bit for bit, its ranking must be this ranking exactly, with
exactly equal scores ordered by doc id; no tolerance is involved.

Within a bound, when the engine's float32 arithmetic is not reproduced bit for bit (another machine,
another BLAS): the replay in float64, and a bound on how far the run's float32 scores may round.

Dense: the run scores a unit query vector against every stored document vector in float32 (any
summation order, with or without fused multiply-add); the replay computes the same dot products in
float64, a block of documents at a time (identical vectors sharing the first one's score here too).
For n-term dot products, |fl(x.y) - x.y| <= gamma_n * sum|x_i y_i| with
gamma_n = n u / (1 - n u) (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., eq. 3.5),
u = 2^-24 for float32 and 2^-53 for float64. The tolerance of a query is that bound for both
computations, at the largest sum|x_i y_i| over its documents (at most about 1: the vectors are unit).

Lexical: the run stores each term's weight rounded to float32 (the weight itself computed with at
most a few roundings; 8 u covers it whether the arithmetic is float32 or float64) and sums a query's m
term weights in float32 (at most m - 1 further roundings, each relative to the running sum). All
weights are positive, so |run - replay| <= (m + 9) u * score; the tolerance of a query is that bound
at its highest score.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .bm25 import BM25
from .duplicates import first_identical
from .ranking import Lane, fixed_groups, groups_of

FLOAT32_UNIT = 2.0 ** -24
FLOAT64_UNIT = 2.0 ** -53
CHUNK = 16384  # documents per block of the float64 replay: no float64 copy of the whole matrix is held


def _gamma(n: int, unit: float) -> float:
    return n * unit / (1.0 - n * unit)


def dense_tolerance(dimensions: int, largest_abs_sum: float) -> float:
    return (_gamma(dimensions, FLOAT32_UNIT) + _gamma(dimensions, FLOAT64_UNIT)) * largest_abs_sum


def lexical_tolerance(terms: int, largest_score: float) -> float:
    return (terms + 9) * FLOAT32_UNIT * largest_score


def _bit_groups(engine: NDArray[np.float32]) -> Callable[[NDArray[np.intp]], NDArray[np.int64]]:
    """Equal float32 bytes, one group: the exact lane's ties."""
    def of(indices: NDArray[np.intp]) -> NDArray[np.int64]:
        return np.ascontiguousarray(engine[indices]).view(np.int32).astype(np.int64)
    return of


@dataclass(frozen=True)
class Replayed:
    """One lane for one query: the engine's float32 scores, and the float64 replay with its bound, computed only
    when asked for (a run whose scores are the engine's bit for bit never needs it)."""

    doc_ids: list[str]
    id_ranks: NDArray[np.int64]
    candidates: NDArray[np.intp]
    engine: NDArray[np.float32]
    replay_bounded: Callable[[], Lane]

    def bounded(self) -> Lane:
        return self.replay_bounded()

    def exact(self) -> Lane:
        return Lane(self.doc_ids, self.id_ranks, self.engine.astype(np.float64), 0.0, _bit_groups(self.engine),
                    self.candidates)

    def reproduces(self, index: int, score: float | None) -> bool:
        return score is not None and float(self.engine[index]) == score


class Replay:
    """Replayed lanes over one document order: the store's documents, fact-id order."""

    def __init__(self, doc_ids: list[str], id_ranks: NDArray[np.int64], documents: NDArray[np.float32],
                 bm25: BM25 | None) -> None:
        self.doc_ids = doc_ids
        self.id_ranks = id_ranks
        self._matrix = np.ascontiguousarray(documents, dtype=np.float32)
        self._representative = first_identical(self._matrix)  # identical vectors share the first one's score
        self.bm25 = bm25
        self._everything = np.arange(len(doc_ids), dtype=np.intp)

    def dense(self, query_vector: NDArray[np.float32]) -> Replayed:
        engine = (self._matrix @ np.asarray(query_vector, dtype=np.float32))[self._representative]
        return Replayed(self.doc_ids, self.id_ranks, self._everything, engine,
                        lambda: self._dense_bounded(query_vector))

    def _dense_bounded(self, query_vector: NDArray[np.float32]) -> Lane:
        query = query_vector.astype(np.float64)
        magnitudes = np.abs(query)
        scores = np.empty(self._matrix.shape[0], dtype=np.float64)
        largest = 0.0
        for start in range(0, scores.size, CHUNK):
            block = self._matrix[start:start + CHUNK].astype(np.float64)
            scores[start:start + CHUNK] = block @ query
            largest = max(largest, float((np.abs(block) @ magnitudes).max(initial=0.0)))
        tolerance = dense_tolerance(query.size, largest)
        return Lane(self.doc_ids, self.id_ranks, scores[self._representative], tolerance,
                    fixed_groups(self._representative), self._everything)

    def lexical(self, text: str) -> tuple[Replayed, list[str]]:
        if self.bm25 is None:
            raise ValueError("no lexical index to replay")
        bm25, scored = self.bm25, self.bm25.score(text)
        candidates = np.flatnonzero(scored.scores > 0)

        def groups(indices: NDArray[np.intp]) -> NDArray[np.int64]:
            return groups_of(np.column_stack([bm25.lengths[indices], bm25.term_frequencies(scored.distinct, indices)]))

        tolerance = lexical_tolerance(len(scored.tokens), float(scored.scores.max(initial=0.0)))
        lane = Lane(self.doc_ids, self.id_ranks, scored.scores, tolerance, groups, candidates)
        return Replayed(self.doc_ids, self.id_ranks, candidates, scored.engine, lambda: lane), scored.tokens


def describe(lane: Lane, index: int) -> str:
    return f"{lane.doc_ids[index]} (replayed {lane.scores[index]:.9g})"


def score_of(entry: dict[str, Any]) -> float | None:
    value = entry.get("score")
    return None if value is None else float(value)
