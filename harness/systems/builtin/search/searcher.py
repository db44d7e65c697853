"""The built-in system's search: the lanes of each declared mode over one store, and their fusion.

`search` is the timed retrieval call: lane scoring, candidate selection and fusion. `receipt` turns
its outcome into the per-query search receipt afterwards, outside the timed region.
"""

from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from harness import modes
from harness.hashing import sha256_bytes, sha256_canonical, sha256_text
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.index.ranking import top_k as best_first
from harness.systems.builtin.store.store import Store
from harness.systems.fusion import rrf_score
from harness.systems.protocol import Hit, SearchOutcome


class Lane(NamedTuple):  # a tuple: made in every timed call, where a frozen dataclass's setattrs cost microseconds
    order: NDArray[np.intp]  # document indices, best first
    scores: NDArray[np.float32] | None  # over every document; None when the lane scored nothing
    evidence: dict[str, Any]


class Searcher:
    def __init__(self, store: Store, config: SearchConfig) -> None:
        self.store = store
        self.config = config
        self.config_sha256 = config.sha256()
        self._modes = {entry.name: entry for entry in modes.MODE_TABLE}
        self._fact_ids: list[int] = store.fact_ids.tolist()  # Python ints, read by position in each timed call

    def _order(self, name: str, scores: NDArray[np.float32], depth: int) -> tuple[NDArray[np.intp], int]:
        """The lane's best `depth` documents and how many it ranked from: a lexical lane ranks only the documents
        that share a term with the query (score > 0), a dense lane every document."""
        candidates = np.flatnonzero(scores > 0) if name == "lexical" else None
        count = scores.size if candidates is None else candidates.size
        return best_first(scores, self.store.ties, depth, candidates), count

    def _lexical(self, text: str, depth: int) -> Lane:
        scored = self.store.lexical.score(text)
        if scored.scores is None:  # no indexable term: an empty lane, never zero-score padding
            return Lane(np.empty(0, dtype=np.intp), None, {"query_tokens": [], "candidates": 0})
        order, candidates = self._order("lexical", scored.scores, depth)
        return Lane(order, scored.scores, {"query_tokens": scored.query_tokens, "candidates": candidates})

    def _dense(self, vector: NDArray[np.float32], depth: int) -> Lane:
        scores = self.store.dense.score(vector)
        return Lane(best_first(scores, self.store.ties, depth), scores, {"query_vector": vector})

    def _single(self, name: str, lane: Lane) -> list[Hit]:
        if lane.scores is None:  # a lane that scored nothing ranks nothing
            return []
        doc_ids, fact_ids, order = self.store.doc_ids, self._fact_ids, lane.order
        # the chosen scores as Python floats in one call (float() of each float32 alone gives the same)
        chosen = zip(order.tolist(), lane.scores[order].tolist(), strict=True)
        return [Hit(doc_ids[i], fact_ids[i], score, {name: {"rank": rank, "score": score}})
                for rank, (i, score) in enumerate(chosen, start=1)]

    def _hybrid(self, lexical: Lane, dense: Lane, top_k: int) -> list[Hit]:
        ranks: dict[int, dict[str, int | None]] = {}
        for name, lane in (("lexical", lexical), ("dense", dense)):
            for rank, index in enumerate(lane.order, start=1):
                ranks.setdefault(int(index), {"lexical": None, "dense": None})[name] = rank
        fused = {index: rrf_score(lane_ranks, self.config.rrf_k) for index, lane_ranks in ranks.items()}
        chosen = sorted(fused, key=lambda i: (-fused[i], self.store.doc_ids[i]))[:top_k]
        hits = []
        for index in chosen:
            lanes: dict[str, dict[str, Any]] = {}
            for name, lane in (("lexical", lexical), ("dense", dense)):
                lane_rank = ranks[index][name]
                score = float(lane.scores[index]) if lane_rank is not None and lane.scores is not None else None
                lanes[name] = {"rank": lane_rank, "score": score}
            lanes["fusion"] = {"method": "rrf", "k": self.config.rrf_k, "fused_score": fused[index]}
            hits.append(Hit(self.store.doc_ids[index], self._fact_ids[index], fused[index], lanes))
        return hits

    def search(self, mode: str, text: str, vector: NDArray[np.float32] | None, top_k: int) -> SearchOutcome:
        declared = self._modes.get(mode) or modes.mode(mode)  # the table's entry; an unknown name is refused there
        depth = self.config.hybrid_candidate_depth if declared.fusion else top_k
        lanes: dict[str, Lane] = {}
        if declared.lexical:
            lanes["lexical"] = self._lexical(text, depth)
        if declared.dense:
            if vector is None:
                raise ValueError(f"mode {mode!r} has a dense lane and needs the query's vector")
            lanes["dense"] = self._dense(vector, depth)
        if declared.fusion:  # the built-in system fuses by RRF (its declaration)
            hits = self._hybrid(lanes["lexical"], lanes["dense"], top_k)
        else:
            (name, lane), = lanes.items()
            hits = self._single(name, lane)
        return SearchOutcome(mode, top_k, hits, lanes)

    def deepen(self, outcome: SearchOutcome, depth: int) -> list[Hit]:
        """The ranking to `depth` from the lanes the timed call scored, without scoring again: what `search` returns
        for top_k = `depth`. A hybrid's lanes are at the configuration's candidate depth whatever top_k asks, so only
        the fusion's cut moves; a single lane is selected again from its scores over every document."""
        lanes: dict[str, Lane] = outcome.evidence
        if modes.mode(outcome.mode).fusion:
            return self._hybrid(lanes["lexical"], lanes["dense"], depth)
        (name, lane), = lanes.items()
        if lane.scores is None:
            return []
        return self._single(name, Lane(self._order(name, lane.scores, depth)[0], lane.scores, lane.evidence))

    def receipt(self, outcome: SearchOutcome, text: str, request_id: str) -> dict[str, Any]:
        evidence: dict[str, Lane] = outcome.evidence
        lanes: dict[str, Any] = {}
        if "lexical" in evidence:
            lanes["lexical"] = {**evidence["lexical"].evidence, "depth": int(evidence["lexical"].order.size)}
        if "dense" in evidence:
            vector = evidence["dense"].evidence["query_vector"]
            lanes["dense"] = {**self.store.dense.evidence(), "query_vector_sha256": sha256_bytes(vector.tobytes()),
                              "depth": int(evidence["dense"].order.size)}
        if outcome.mode == "hybrid":
            lanes["fusion"] = {"method": "rrf", "k": self.config.rrf_k,
                               "candidate_depth": self.config.hybrid_candidate_depth,
                               "lane_order": ["lexical", "dense"]}
        return {
            "request_id": request_id,
            "mode": outcome.mode,
            "query_sha256": sha256_text(text),
            "top_k": outcome.top_k,
            "config_sha256": self.config_sha256,
            "store_sha256": self.store.sha256,
            "namespace": self.store.namespace,
            "lanes": lanes,
            "result_count": len(outcome.hits),
            "results_sha256": sha256_canonical([[hit.doc_id, hit.fact_id, hit.score] for hit in outcome.hits]),
        }
