"""The fusions a hybrid declares, computed as the rows record them (the validator recomputes them with its own code).

`{"method": "rrf", "k": K, "candidate_depth": D}`: reciprocal rank fusion. A document's fused score is the sum,
over the lanes whose top D ranked it, of 1 / (K + rank), added lexical first, then dense.

`{"method": "convex", "weight": W, "normalisation": "min-max" | "z-score", "candidate_depth": D}`: a convex
combination of normalised lane scores, W the weight of the dense lane: (1 - W) * lexical + W * dense. Each lane's
scores are normalised over that lane's own top D (its candidates), from its statistics (`LaneStatistics`):
min-max (s - min) / (max - min), 0 when max equals min; z-score (s - mean) / std, std the population standard
deviation, 0 when std is 0. A document a lane did not return gets that lane's floor: the normalised value of its
lowest candidate (min-max 0; z-score (min - mean) / std, 0 when std is 0), and 0 when the lane has no candidates.

Every value is a Python float (IEEE float64), computed in the order written here; the fused ranking is the fused
score descending, then the doc id ascending.
"""

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.systems.declarations import NORMALISATIONS

LANES = ("lexical", "dense")
Lanes = Mapping[str, tuple[int | None, float | None]]  # lane -> (rank, score) of one document; (None, None): absent


@dataclass(frozen=True)
class LaneStatistics:
    """One lane's candidates (its top `candidate_depth`), as a convex fusion normalises them: how many, their lowest
    and highest score, their mean and population standard deviation; the four are None when there are none."""

    candidates: int
    minimum: float | None = None
    maximum: float | None = None
    mean: float | None = None
    std: float | None = None

    def record(self) -> dict[str, Any]:
        """As the search receipt records it."""
        return {"candidates": self.candidates, "min": self.minimum, "max": self.maximum, "mean": self.mean,
                "std": self.std}

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> "LaneStatistics":
        return cls(record["candidates"], record["min"], record["max"], record["mean"], record["std"])


def lane_statistics(scores: Sequence[float]) -> LaneStatistics:
    """The statistics of a lane's candidate scores: mean = fsum / n, std = sqrt(fsum((s - mean)^2) / n)."""
    values = [float(score) for score in scores]
    if not values:
        return LaneStatistics(0)
    mean = math.fsum(values) / len(values)
    std = math.sqrt(math.fsum((value - mean) ** 2 for value in values) / len(values))
    return LaneStatistics(len(values), min(values), max(values), mean, std)


def normalised(score: float | None, statistics: LaneStatistics, normalisation: str) -> float:
    """A lane score normalised over the lane's candidates; None (the lane did not return the document): the floor."""
    low, high, mean, std = statistics.minimum, statistics.maximum, statistics.mean, statistics.std
    if low is None or high is None or mean is None or std is None:
        return 0.0  # a lane without candidates: every document gets 0 from it
    if normalisation == "min-max":
        return 0.0 if score is None or high == low else (float(score) - low) / (high - low)
    if normalisation == "z-score":
        return 0.0 if std == 0.0 else ((low if score is None else float(score)) - mean) / std
    raise ValueError(f"no normalisation {normalisation!r}: {' or '.join(NORMALISATIONS)}")


def rrf_score(lane_ranks: Mapping[str, int | None], k: int) -> float:
    """The sum over the lanes that ranked the document of 1 / (k + rank), lexical first."""
    total = 0.0
    for lane in LANES:
        rank = lane_ranks.get(lane)
        if rank is not None:
            total += 1.0 / (k + rank)
    return total


def convex_score(lane_scores: Mapping[str, float | None], statistics: Mapping[str, LaneStatistics], weight: float,
                 normalisation: str) -> float:
    """(1 - weight) * the lexical lane's normalised score + weight * the dense lane's."""
    lexical = normalised(lane_scores.get("lexical"), statistics["lexical"], normalisation)
    dense = normalised(lane_scores.get("dense"), statistics["dense"], normalisation)
    return (1.0 - float(weight)) * lexical + float(weight) * dense


def fused_score(fusion: Mapping[str, Any], lanes: Lanes, statistics: Mapping[str, LaneStatistics] | None = None
                ) -> float:
    """One document's fused score under the declared fusion, from its lane evidence (and, for convex, each lane's
    statistics)."""
    if fusion["method"] == "rrf":
        return rrf_score({lane: lanes.get(lane, (None, None))[0] for lane in LANES}, int(fusion["k"]))
    if statistics is None:
        raise ValueError("a convex fusion needs each lane's statistics")
    return convex_score({lane: lanes.get(lane, (None, None))[1] for lane in LANES}, statistics,
                        float(fusion["weight"]), str(fusion["normalisation"]))


@dataclass(frozen=True)
class Fused:
    """A fused ranking, best first: (doc id, fused score, lane evidence), and each lane's statistics."""

    ranking: list[tuple[str, float, dict[str, tuple[int | None, float | None]]]]
    statistics: dict[str, LaneStatistics]


def fuse_lanes(fusion: Mapping[str, Any], lanes: Mapping[str, Sequence[tuple[str, float]]], top_k: int) -> Fused:
    """Each lane's ranking (doc id, score), best first, cut here to the declared candidate depth, fused."""
    depth = int(fusion["candidate_depth"])
    cut = {lane: [(str(doc_id), float(score)) for doc_id, score in lanes.get(lane, ())][:depth] for lane in LANES}
    for lane, ranked in cut.items():
        if len({doc_id for doc_id, _ in ranked}) != len(ranked):
            raise ValueError(f"the {lane} lane holds a doc id more than once: each lane ranks a document once")
        if any(ahead[1] < behind[1] for ahead, behind in itertools.pairwise(ranked)):
            raise ValueError(f"the {lane} lane is not best first: give each lane's (doc id, score) by score descending")
    statistics = {lane: lane_statistics([score for _, score in cut[lane]]) for lane in LANES}
    evidence: dict[str, dict[str, tuple[int | None, float | None]]] = {}
    for lane in LANES:
        for rank, (doc_id, score) in enumerate(cut[lane], start=1):
            evidence.setdefault(doc_id, dict.fromkeys(LANES, (None, None)))[lane] = (rank, score)
    fused = {doc_id: fused_score(fusion, found, statistics) for doc_id, found in evidence.items()}
    best = sorted(fused, key=lambda doc_id: (-fused[doc_id], doc_id))[:top_k]
    return Fused([(doc_id, fused[doc_id], evidence[doc_id]) for doc_id in best], statistics)
