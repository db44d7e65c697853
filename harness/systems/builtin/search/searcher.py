"""The three retrieval modes over one store.

`search` is the timed retrieval call: lane scoring, candidate selection and fusion. `receipt` turns
its outcome into the per-query search receipt afterwards, outside the timed region.
"""

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from harness.errors import HarnessError
from harness.fixture.corpus_fixture import CorpusFixture
from harness.hashing import sha256_bytes, sha256_canonical, sha256_text
from harness.systems.builtin.config import MODES, SearchConfig
from harness.systems.builtin.index.ranking import top_k
from harness.systems.builtin.search.fusion import rrf_score
from harness.systems.builtin.store.store import Store

LATENCY_SCOPE = ("the retrieval call: query tokenization and fixture vector lookup, lane scoring over every "
                 "document, candidate selection, fusion; not receipt assembly, metrics or serialization")


class UnknownQueryError(HarnessError):
    """The query text has no vector in the corpus fixture."""


@dataclass(frozen=True)
class Hit:
    doc_id: str
    fact_id: int
    score: float
    lanes: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class Lane:
    order: NDArray[np.intp]  # document indices, best first
    scores: NDArray[np.float32] | None  # over every document; None when the lane scored nothing
    evidence: dict[str, Any]


@dataclass(frozen=True)
class SearchOutcome:
    mode: str
    hits: list[Hit]
    lanes: dict[str, Lane]


class Searcher:
    def __init__(self, store: Store, fixture: CorpusFixture, config: SearchConfig) -> None:
        self.store = store
        self.config = config
        self.config_sha256 = config.sha256()
        self._vectors: dict[str, NDArray[np.float32]] = {}
        for query, vector in zip(fixture.data["queries"], fixture.query_vectors, strict=True):
            self._vectors.setdefault(query["text"], vector)

    def query_vector(self, text: str) -> NDArray[np.float32]:
        try:
            return self._vectors[text]
        except KeyError:
            raise UnknownQueryError(
                f"query text {text[:80]!r} has no vector in the corpus fixture; the runner never embeds "
                "query text itself, so add the query to the fixture and rebuild it"
            ) from None

    def _lexical(self, text: str, depth: int) -> Lane:
        scored = self.store.lexical.score(text)
        if scored.scores is None:  # no indexable term: an empty lane, never zero-score padding
            return Lane(np.empty(0, dtype=np.intp), None, {"query_tokens": [], "candidates": 0})
        candidates = np.flatnonzero(scored.scores > 0)
        return Lane(top_k(scored.scores, self.store.ties, depth, candidates), scored.scores,
                    {"query_tokens": scored.query_tokens, "candidates": int(candidates.size)})

    def _dense(self, text: str, depth: int) -> Lane:
        vector = self.query_vector(text)
        scores = self.store.dense.score(vector)
        return Lane(top_k(scores, self.store.ties, depth), scores, {"query_vector": vector})

    def _single(self, name: str, lane: Lane) -> list[Hit]:
        if lane.scores is None:  # a lane that scored nothing ranks nothing
            return []
        scores = lane.scores
        return [Hit(self.store.doc_ids[i], int(self.store.fact_ids[i]), float(scores[i]),
                    {name: {"rank": rank, "score": float(scores[i])}})
                for rank, i in enumerate(lane.order, start=1)]

    def _hybrid(self, lexical: Lane, dense: Lane) -> list[Hit]:
        ranks: dict[int, dict[str, int | None]] = {}
        for name, lane in (("lexical", lexical), ("dense", dense)):
            for rank, index in enumerate(lane.order, start=1):
                ranks.setdefault(int(index), {"lexical": None, "dense": None})[name] = rank
        fused = {index: rrf_score(lane_ranks, self.config.rrf_k) for index, lane_ranks in ranks.items()}
        chosen = sorted(fused, key=lambda i: (-fused[i], self.store.doc_ids[i]))[: self.config.top_k]
        hits = []
        for index in chosen:
            lanes: dict[str, dict[str, Any]] = {}
            for name, lane in (("lexical", lexical), ("dense", dense)):
                lane_rank = ranks[index][name]
                score = float(lane.scores[index]) if lane_rank is not None and lane.scores is not None else None
                lanes[name] = {"rank": lane_rank, "score": score}
            lanes["fusion"] = {"method": "rrf", "k": self.config.rrf_k, "fused_score": fused[index]}
            hits.append(Hit(self.store.doc_ids[index], int(self.store.fact_ids[index]), fused[index], lanes))
        return hits

    def search(self, mode: str, text: str) -> SearchOutcome:
        if mode == "fts_only":
            lexical = self._lexical(text, self.config.top_k)
            return SearchOutcome(mode, self._single("lexical", lexical), {"lexical": lexical})
        if mode == "vector_only":
            dense = self._dense(text, self.config.top_k)
            return SearchOutcome(mode, self._single("dense", dense), {"dense": dense})
        if mode == "hybrid":
            depth = self.config.hybrid_candidate_depth
            lexical, dense = self._lexical(text, depth), self._dense(text, depth)
            return SearchOutcome(mode, self._hybrid(lexical, dense), {"lexical": lexical, "dense": dense})
        raise HarnessError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")

    def receipt(self, outcome: SearchOutcome, text: str, request_id: str) -> dict[str, Any]:
        lanes: dict[str, Any] = {}
        if "lexical" in outcome.lanes:
            lanes["lexical"] = {**outcome.lanes["lexical"].evidence, "depth": int(outcome.lanes["lexical"].order.size)}
        if "dense" in outcome.lanes:
            vector = outcome.lanes["dense"].evidence["query_vector"]
            lanes["dense"] = {**self.store.dense.evidence(), "query_vector_sha256": sha256_bytes(vector.tobytes()),
                              "depth": int(outcome.lanes["dense"].order.size)}
        if outcome.mode == "hybrid":
            lanes["fusion"] = {"method": "rrf", "k": self.config.rrf_k,
                               "candidate_depth": self.config.hybrid_candidate_depth,
                               "lane_order": ["lexical", "dense"]}
        return {
            "request_id": request_id,
            "mode": outcome.mode,
            "query_sha256": sha256_text(text),
            "top_k": self.config.top_k,
            "config_sha256": self.config_sha256,
            "store_sha256": self.store.sha256,
            "namespace": self.store.namespace,
            "lanes": lanes,
            "result_count": len(outcome.hits),
            "results_sha256": sha256_canonical([[hit.doc_id, hit.fact_id, hit.score] for hit in outcome.hits]),
        }
