"""Top-k selection with the recorded tie rule: score descending, then doc_id ascending."""

import numpy as np
from numpy.typing import NDArray


def tie_ranks(doc_ids: list[str]) -> NDArray[np.int64]:
    """Position of each document in doc_id order; the secondary sort key of every ranking."""
    ranks = np.empty(len(doc_ids), dtype=np.int64)
    ranks[np.argsort(np.array(doc_ids, dtype=object), kind="stable")] = np.arange(len(doc_ids))
    return ranks


def _at_or_above_kth(values: NDArray[np.floating], k: int) -> NDArray[np.intp]:
    """Positions of every value >= the k-th largest value (so all ties at the cut are included), ascending.

    One selection over a copy (the ndarray method: no Python-level wrapper), one comparison: each numpy call costs
    microseconds after the dense lane's matrix-vector product has streamed the matrix through the caches."""
    part = values.copy()
    part.partition(values.size - k)
    selected: NDArray[np.intp] = (values >= part[values.size - k]).nonzero()[0]
    return selected


def top_k(scores: NDArray[np.floating], ties: NDArray[np.int64], k: int,
          candidates: NDArray[np.intp] | None = None) -> NDArray[np.intp]:
    """Indices of the best k candidates (all documents when `candidates` is None), ties by doc_id.

    Every candidate tied with the k-th score is considered before cutting, so which tied document
    makes the cut depends on doc_id alone, never on storage order.
    """
    values = scores if candidates is None else scores[candidates]
    if values.size > k:
        keep = _at_or_above_kth(values, k)
        index = keep if candidates is None else candidates[keep]
    else:
        index = np.arange(values.size) if candidates is None else candidates
    order = np.lexsort((ties[index], -scores[index]))
    return index[order[:k]]
