"""A plugin's answers as the harness records them: hits with lane evidence, and the per-query search receipt."""

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from harness import modes
from harness.hashing import sha256_bytes, sha256_canonical, sha256_text
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
            fusion = declarations.get("fusion") or {}
            lanes["fusion"] = {"method": fusion.get("method", "undeclared"), "k": fusion.get("k", 0),
                               "fused_score": float(result.score)}
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
        lanes["fusion"] = {"method": fusion.get("method", "undeclared"), "k": fusion.get("k", 0),
                           "candidate_depth": fusion.get("candidate_depth", 0), "lane_order": LANE_ORDER}
    return {"request_id": request_id, "mode": outcome.mode, "query_sha256": sha256_text(text),
            "top_k": outcome.top_k, "config_sha256": config_sha256, "store_sha256": store_sha256,
            "namespace": namespace, "lanes": lanes, "result_count": len(outcome.hits),
            "results_sha256": sha256_canonical([[hit.doc_id, hit.fact_id, hit.score] for hit in outcome.hits])}
