"""A plugin's answers as the harness records them: hits with lane evidence, and the per-query search receipt."""

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from harness import modes
from harness.hashing import sha256_bytes, sha256_canonical, sha256_text
from harness.systems.fusion import LaneStatistics
from harness.systems.plugin.api import Result
from harness.systems.plugin.rules import LANE_KEYS
from harness.systems.protocol import DENSE_EXACT, Hit, SearchOutcome

LANE_ORDER = list(LANE_KEYS)


def duplicate_rows(vectors: NDArray[np.float32]) -> int:
    rows = np.ascontiguousarray(vectors).view(np.dtype((np.void, vectors.dtype.itemsize * vectors.shape[1]))).ravel()
    return int(rows.size - np.unique(rows).size)


def dense_backend(engine: Mapping[str, str], declarations: Mapping[str, Any], vectors: NDArray[np.float32]
                  ) -> dict[str, Any]:
    exact = declarations.get("dense") == DENSE_EXACT
    return {"backend": engine["name"], "exact": exact, "candidates_scored": int(vectors.shape[0]) if exact else 0,
            "dtype": "float32", "dimensions": int(vectors.shape[1]), "metric": "inner product on unit vectors",
            "identical_vectors_share_a_score": bool(declarations.get("identical_vectors_share_a_score", False)),
            "duplicate_vectors": duplicate_rows(vectors)}


def result_fusion(fusion: Mapping[str, Any], score: float) -> dict[str, Any]:
    """A hybrid result's fusion evidence: the method (and RRF's k) and the fused score."""
    if fusion["method"] == "rrf":
        return {"method": "rrf", "k": fusion["k"], "fused_score": score}
    return {"method": fusion["method"], "fused_score": score}


def receipt_fusion(fusion: Mapping[str, Any], statistics: Mapping[str, LaneStatistics]) -> dict[str, Any]:
    """The search receipt's fusion: the declared one, in lane order; a convex one with each lane's statistics over
    its candidates, from which the validator recomputes every fused score."""
    if fusion["method"] == "rrf":
        return {"method": "rrf", "k": fusion["k"], "candidate_depth": fusion["candidate_depth"],
                "lane_order": LANE_ORDER}
    return {"method": fusion["method"], "weight": fusion["weight"], "normalisation": fusion["normalisation"],
            "candidate_depth": fusion["candidate_depth"], "lane_order": LANE_ORDER,
            "statistics": {name: statistics[name].record() for name in LANE_ORDER}}


def hits_of(results: list[Result], mode: str, position: Mapping[str, int], declarations: Mapping[str, Any]
            ) -> list[Hit]:
    """The hits of an answer that keeps the rules of search (harness.systems.plugin.rules)."""
    declared = modes.mode(mode)
    hits = []
    for rank, result in enumerate(results, start=1):
        lanes: dict[str, dict[str, Any]] = {}
        if declared.fusion:
            for name in LANE_ORDER:
                lane_rank, lane_score = result.lanes.get(name, (None, None))
                lanes[name] = {"rank": lane_rank, "score": None if lane_score is None else float(lane_score)}
            lanes["fusion"] = result_fusion(declarations["fusion"], float(result.score))
        else:
            lanes["lexical" if declared.lexical else "dense"] = {"rank": rank, "score": float(result.score)}
        hits.append(Hit(result.doc_id, position[result.doc_id], float(result.score), lanes))
    return hits


def search_receipt(outcome: SearchOutcome, text: str, request_id: str, *, backend: dict[str, Any] | None,
                   declarations: Mapping[str, Any], config_sha256: str, store_sha256: str, namespace: str
                   ) -> dict[str, Any]:
    declared = modes.mode(outcome.mode)
    fusion = declarations.get("fusion") or {}
    depth = int(fusion.get("candidate_depth", 0)) if declared.fusion else len(outcome.hits)
    lanes: dict[str, Any] = {}
    if declared.lexical:  # the engine's own analyzer: it reports no tokens or candidate count
        lanes["lexical"] = {"query_tokens": None, "candidates": None, "depth": depth}
    if declared.dense and backend is not None:
        vector: NDArray[np.float32] = outcome.evidence["vector"]
        lanes["dense"] = {**backend, "query_vector_sha256": sha256_bytes(vector.tobytes()), "depth": depth}
    if declared.fusion:
        lanes["fusion"] = receipt_fusion(fusion, outcome.evidence.get("statistics") or {})
    return {"request_id": request_id, "mode": outcome.mode, "query_sha256": sha256_text(text),
            "top_k": outcome.top_k, "config_sha256": config_sha256, "store_sha256": store_sha256,
            "namespace": namespace, "lanes": lanes, "result_count": len(outcome.hits),
            "results_sha256": sha256_canonical([[hit.doc_id, hit.fact_id, hit.score] for hit in outcome.hits])}
