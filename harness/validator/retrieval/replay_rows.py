"""One row against the replayed lanes: reported scores and ranks, missing documents, the fused cut.

A lane's replayed ranking admits, for each document, an interval of ranks (one rank when the replay is
exact or no score lies within the rounding bound of another; see ranking.py). A row passes when every
reported score is the replay's (within the bound), every reported rank is admitted, and no document the
replay certainly ranks inside the cut is missing.
"""

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .lanes import Replay, describe, score_of
from .ranking import Lane

Row = dict[str, Any]


@dataclass
class Tally:
    rows: int = 0
    exact_rows: int = 0  # rows whose scores are the engine's float32 scores bit for bit
    bounded_rows: int = 0  # rows checked against the float64 replay within the rounding bound
    bounded_queries: list[str] = field(default_factory=list)
    ranks: int = 0
    within_tolerance: int = 0  # reported ranks the replay could not decide alone (scores within the tolerance)
    problems: list[str] = field(default_factory=list)

    def note(self, problem: str | None) -> None:
        if problem is not None and len(self.problems) < 5:
            self.problems.append(problem)


@dataclass(frozen=True)
class Ranked:
    """A lane's replayed ranking near its cut: every candidate whose admissible ranks can reach the top `size`
    (those scoring, plus twice the tolerance, at least the size-th best score), in replayed order with their
    admissible ranks. A document further down is found (and its ranks counted) only when asked about."""

    lane: Lane
    size: int  # how many documents the lane returns
    candidates: int  # how many documents the lane may return
    top: NDArray[np.intp]  # the candidates near the cut, best first
    low: NDArray[np.int64]  # aligned with top
    high: NDArray[np.int64]
    position: dict[int, int]  # document index -> its place in top

    @classmethod
    def of(cls, lane: Lane, depth: int) -> "Ranked":
        candidates = lane.candidates
        scores = lane.scores[candidates]
        size = min(depth, candidates.size)
        near = pool = candidates[:0]
        if size:
            window = 2.0 * lane.tolerance
            cut = np.partition(scores, scores.size - size)[scores.size - size]
            reaches = scores + window >= cut  # fewer than `size` candidates can score certainly above these
            near = candidates[reaches]
            pool = candidates[scores >= (scores[reaches] - window).min()]
        low, high = lane.bounds(near, pool)
        order = np.lexsort((lane.id_ranks[near], -lane.scores[near]))
        top = near[order]
        return cls(lane, size, int(candidates.size), top, low[order], high[order],
                   {index: place for place, index in enumerate(top.tolist())})

    def admits(self, index: int | None) -> bool:
        candidates = self.lane.candidates
        if index is None or not candidates.size:
            return False
        place = int(np.searchsorted(candidates, index))
        return place < candidates.size and int(candidates[place]) == index

    def near_cut(self, index: int) -> tuple[int, int] | None:
        """A candidate's admissible ranks when they can reach the cut; None when it certainly ranks below it."""
        place = self.position.get(index)
        return None if place is None else (int(self.low[place]), int(self.high[place]))

    def ranks(self, index: int) -> tuple[int, int]:
        """A candidate's admissible ranks, wherever it lies."""
        found = self.near_cut(index)
        if found is not None:
            return found
        lane, members = self.lane, np.array([index], dtype=np.intp)
        pool = lane.candidates[lane.scores[lane.candidates] >= lane.scores[members] - 2.0 * lane.tolerance]
        low, high = lane.bounds(members, pool)
        return int(low[0]), int(high[0])

    def head(self) -> list[int]:
        """The replayed ranking's first `size` documents."""
        return [int(index) for index in self.top[:self.size]]

    def expected_at(self, rank: int) -> str:
        if rank > self.candidates:
            return "nothing"
        order = self.top if rank <= self.top.size else self.lane.order()
        return describe(self.lane, int(order[rank - 1]))

    def within(self, cut: int, *, certainly: bool) -> NDArray[np.intp]:
        """Documents the replay ranks within the top `cut` (at most `size`) certainly, or possibly; ascending."""
        if cut > self.size:
            raise ValueError(f"only the top {self.size} are ranked near the cut, not the top {cut}")
        bound = self.high if certainly else self.low
        return np.sort(self.top[bound <= cut])


def _ranked_entry(query: str, lane_name: str, ranked: Ranked, index: int | None, doc_id: str, rank: int,
                  score: float | None, tally: Tally) -> str | None:
    """A reported (rank, score) of one document in one lane, against the replay."""
    where = f"query {query}, {lane_name} rank {rank}"
    if index is None or not ranked.admits(index):
        return f"{where}: {doc_id} is not a document this lane can return; expected {ranked.expected_at(rank)}"
    lane = ranked.lane
    if score is None or abs(score - lane.scores[index]) > lane.tolerance:
        return (f"{where}: {doc_id} has score {score!r}, the replay {lane.scores[index]:.9g} "
                f"(tolerance {lane.tolerance:.3g})")
    low, high = ranked.ranks(index)
    if rank > ranked.size or not low <= rank <= high:
        return (f"{where}: expected {ranked.expected_at(rank)}, found {describe(lane, index)} with score {score:.9g}; "
                f"the replay admits ranks {low}..{high} for it (tolerance {lane.tolerance:.3g})")
    tally.ranks += 1
    tally.within_tolerance += int(low != high)
    return None


def single_lane(row: Row, lane_name: str, ranked: Ranked, index_of: dict[str, int], tally: Tally) -> str | None:
    query, results = row["query_id"], row["results"]
    if len(results) != ranked.size:
        return (f"query {query}: {len(results)} results; the replayed {lane_name} lane has {ranked.candidates} "
                f"candidates, so {ranked.size} results")
    for rank, result in enumerate(results, start=1):
        entry = result["lanes"].get(lane_name) or {}
        if set(result["lanes"]) != {lane_name} or entry.get("rank") != rank or entry.get("score") != result["score"]:
            return f"query {query}, rank {rank}: lane evidence {result['lanes']!r} is not this {lane_name} rank"
        problem = _ranked_entry(query, lane_name, ranked, index_of.get(result["doc_id"]), result["doc_id"], rank,
                                score_of(result), tally)
        if problem:
            return problem
    reported = {index_of[r["doc_id"]] for r in results}
    missing = [int(d) for d in ranked.within(ranked.size, certainly=True) if int(d) not in reported]
    if missing:
        return f"query {query}: {describe(ranked.lane, missing[0])} certainly ranks within the top {ranked.size}, " \
               "but the row does not return it"
    return None


def lane_of_hit(row: Row, lane_name: str, ranked: Ranked, index_of: dict[str, int], tally: Tally) -> str | None:
    for result in row["results"]:
        entry = result["lanes"][lane_name]
        index, rank = index_of.get(result["doc_id"]), entry["rank"]
        if rank is None:
            if entry["score"] is not None:
                return f"query {row['query_id']}: {result['doc_id']} has a {lane_name} score but no {lane_name} rank"
            near = None if index is None else ranked.near_cut(index)
            if index is not None and near is not None and near[1] <= ranked.size:
                return (f"query {row['query_id']}: {describe(ranked.lane, index)} certainly ranks within the "
                        f"{lane_name} lane's top {ranked.size} (ranks {near[0]}..{near[1]}), "
                        "but the row gives it no lane rank")
            continue
        problem = _ranked_entry(row["query_id"], lane_name, ranked, index, result["doc_id"], rank,
                                score_of(entry), tally)
        if problem:
            return problem
    return None


def fusion_bounds(lanes: list[Ranked], index: int, rrf_k: int) -> tuple[float, float]:
    """Lowest and highest fused score the replay admits for a document."""
    low = high = 0.0
    for ranked in lanes:
        near = ranked.near_cut(index)  # None: certainly below the lane's cut
        if near is not None and near[0] <= ranked.size:
            high += 1.0 / (rrf_k + near[0])
            if near[1] <= ranked.size:
                low += 1.0 / (rrf_k + near[1])
    return low, high


def replayed_fusion(lanes: list[Ranked], rrf_k: int, top_k: int, replay: Replay) -> list[tuple[float, int]]:
    fused: dict[int, float] = {}
    for ranked in lanes:
        for rank, index in enumerate(ranked.head(), start=1):
            fused[index] = fused.get(index, 0.0) + 1.0 / (rrf_k + rank)
    return sorted(((score, index) for index, score in fused.items()),
                  key=lambda pair: (-pair[0], replay.id_ranks[pair[1]]))[:top_k]


def fused_cut(row: Row, lanes: list[Ranked], rrf_k: int, top_k: int, replay: Replay,
           index_of: dict[str, int]) -> str | None:
    """No document the replay certainly fuses above the row's last result is missing from the row."""
    results = row["results"]
    full = len(results) == top_k
    cutoff = results[-1]["score"] if full else 0.0
    last = index_of.get(results[-1]["doc_id"]) if results else None
    reported = {index_of.get(r["doc_id"]) for r in results}
    considered = {int(d) for ranked in lanes for d in ranked.within(ranked.size, certainly=False)} - reported
    for index in sorted(considered, key=lambda d: replay.id_ranks[d]):
        low, high = fusion_bounds(lanes, index, rrf_k)
        certain_tie = low == high == cutoff and full and last is not None \
            and replay.id_ranks[index] < replay.id_ranks[last]
        if low > cutoff or certain_tie:
            expected = replayed_fusion(lanes, rrf_k, top_k, replay)
            rank = next((r for r, (_, i) in enumerate(expected, start=1) if i == index), None)
            return (f"query {row['query_id']}: the replay fuses {replay.doc_ids[index]} to at least {low:.9g} "
                    f"(rank {rank} of the replayed fusion), above the row's cut at {cutoff:.9g}, but the row "
                    "does not return it")
    return None
