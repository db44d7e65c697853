"""Which ranks a replayed lane allows each document, given how far the run's scores may round.

The run scores in float32; the replay in float64 from the same inputs. Every run score r_d lies
within `tolerance` of the replayed score s_d (the lane modules derive that bound). Then a document e
certainly ranks above d when s_e - s_d > 2 * tolerance, and may rank above d when
s_e >= s_d - 2 * tolerance. Documents the run is bound to score identically (same `group`: the
same vector bytes, or the same term frequencies and length) are ordered by doc id, as the run's tie
rule orders them. So each document's admissible ranks form an interval [low, high]; when no two
scores are within the tolerance of each other, the interval is one rank and the replay decides the
ranking exactly.
"""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

# The group number of each given document. Documents of one group the run is bound to score identically, and
# their replayed scores are identical too (so a document's group lies among the documents of its own score).
Groups = Callable[[NDArray[np.intp]], NDArray[np.int64]]


def fixed_groups(groups: NDArray[np.int64]) -> Groups:
    """Groups given for every document at once."""
    def of(indices: NDArray[np.intp]) -> NDArray[np.int64]:
        found: NDArray[np.int64] = groups[indices]
        return found
    return of


@dataclass(frozen=True)
class Lane:
    doc_ids: list[str]  # one per document index
    id_ranks: NDArray[np.int64]  # position of each document in doc id order (the tie rule's key)
    scores: NDArray[np.float64]  # replayed, one per document
    tolerance: float  # bound on |run score - replayed score| for every document of this query
    groups: Groups  # equal group: the run is bound to give equal scores
    candidates: NDArray[np.intp]  # ascending indices the lane may return, e.g. documents sharing a term with the query

    def order(self) -> NDArray[np.intp]:
        """The replayed ranking of the candidates: score descending, then doc id ascending."""
        keys = np.lexsort((self.id_ranks[self.candidates], -self.scores[self.candidates]))
        return self.candidates[keys]

    def admissible(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Lowest and highest admissible rank of each candidate (arrays aligned with `candidates`)."""
        return self.bounds(self.candidates, self.candidates)

    def bounds(self, members: NDArray[np.intp], pool: NDArray[np.intp]) -> tuple[NDArray[np.int64],
                                                                               NDArray[np.int64]]:
        """Lowest and highest admissible rank of each of `members`, counted among `pool`: ascending candidates that
        include the members and every candidate scoring at least a member's score less twice the tolerance (all
        candidates will do; fewer give the same answer for less)."""
        ordered = np.sort(self.scores[pool])
        scores = self.scores[members]
        n, window = ordered.size, 2.0 * self.tolerance
        surely_above = n - np.searchsorted(ordered, scores + window, side="right")
        maybe_at_or_above = n - np.searchsorted(ordered, scores - window, side="left")
        before, after = self._group_neighbours(members, pool)
        return (surely_above + before + 1).astype(np.int64), (maybe_at_or_above - after).astype(np.int64)

    def _group_neighbours(self, members: NDArray[np.intp], pool: NDArray[np.intp]) -> tuple[NDArray[np.int64],
                                                                                         NDArray[np.int64]]:
        """For each member, how many documents of the pool in its group have a smaller / larger doc id."""
        groups = self.groups(pool)
        order = np.lexsort((self.id_ranks[pool], groups))
        ranked = groups[order]
        starts = np.ones(ranked.size, dtype=bool)
        starts[1:] = ranked[1:] != ranked[:-1]
        run = np.cumsum(starts) - 1
        first = np.flatnonzero(starts)
        sizes = np.diff(np.append(first, ranked.size))
        position = np.arange(ranked.size) - first[run]
        before, after = np.empty(ranked.size, dtype=np.int64), np.empty(ranked.size, dtype=np.int64)
        before[order], after[order] = position, sizes[run] - 1 - position
        where = np.searchsorted(pool, members)
        return before[where], after[where]


def id_ranks(doc_ids: list[str]) -> NDArray[np.int64]:
    """Position of each document in doc id order (Unicode code point order, as Python compares strings)."""
    ranks = np.empty(len(doc_ids), dtype=np.int64)
    ranks[sorted(range(len(doc_ids)), key=doc_ids.__getitem__)] = np.arange(len(doc_ids))
    return ranks


def groups_of(keys: NDArray[np.generic]) -> NDArray[np.int64]:
    """Group number of each row of a 2-D key array: equal rows share a group."""
    rows = np.ascontiguousarray(keys).view(np.dtype((np.void, keys.dtype.itemsize * keys.shape[1]))).ravel()
    _, inverse = np.unique(rows, return_inverse=True)
    return inverse.ravel().astype(np.int64)
