"""Reciprocal rank fusion. The fused score of a document is the sum, over the lanes that ranked it,
of 1 / (k + rank), added in lane order (lexical, then dense) so that a recomputation is exact."""

from collections.abc import Mapping

LANES = ("lexical", "dense")


def rrf_score(lane_ranks: Mapping[str, int | None], k: int) -> float:
    total = 0.0
    for lane in LANES:
        rank = lane_ranks.get(lane)
        if rank is not None:
            total += 1.0 / (k + rank)
    return total
