"""The fusion a hybrid declares, for a system of its own: `fuse` turns its two lanes into the ranking it returns.

Each lane is given best first as (doc id, score), at least as deep as the declared candidate depth (deeper is cut
here); the answer is a `Ranking` of `Result`s with their lane evidence and fused scores, and each lane's statistics,
exactly as harness/systems/fusion.py defines the declared fusion, so the rows record what the validator recomputes.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from harness.systems.declarations import fusion_problem
from harness.systems.fusion import fuse_lanes
from harness.systems.plugin.api import Ranking, Result


def fuse(fusion: Mapping[str, Any], lexical: Sequence[tuple[str, float]], dense: Sequence[tuple[str, float]],
         top_k: int) -> Ranking:
    """The top_k of the declared fusion (`declarations["fusion"]`) of the two lanes, best first."""
    problem = fusion_problem(fusion)
    if problem is not None:
        raise ValueError(problem)
    fused = fuse_lanes(fusion, {"lexical": lexical, "dense": dense}, top_k)
    return Ranking((Result(doc_id, score, lanes) for doc_id, score, lanes in fused.ranking), fused.statistics)
