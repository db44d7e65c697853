"""Milvus behind the plugin interface: build (idempotent, resumable, refusing another fixture or configuration),
the three modes, its parts (the Lite directory) or, for a server, what it attests."""

import importlib.metadata
import os
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from harness.hashing import sha256_canonical
from harness.modes import SEARCHED
from harness.systems.milvus import settings
from harness.systems.milvus.collection import LITE_VERSION_PREFIX, Collection, connect
from harness.systems.plugin.api import DENSE_EXACT, Corpus, Result


def _ranked(hits: list[tuple[str, float]], top_k: int) -> list[tuple[str, float]]:
    return sorted(hits, key=lambda hit: (-hit[1], hit[0]))[:top_k]


class MilvusSystem:
    name = "milvus"
    version = "1.0.0"
    modes = SEARCHED
    environment = (settings.TOKEN_VARIABLE, settings.URI_VARIABLE)  # bound by digest: the token is never written

    def __init__(self, uri: str | None = None) -> None:
        self.server_uri = uri or os.environ.get(settings.URI_VARIABLE) or None
        self.declarations: dict[str, Any] = {
            "dense": DENSE_EXACT, "lexical": "Milvus BM25 function (its own analyzer): replayed through the system",
            "fusion": {"method": "rrf", "k": settings.RRF_K, "candidate_depth": settings.CANDIDATE_DEPTH,
                       "score_dtype": "float32"}}
        self.collection: Collection | None = None
        self.directory: Path | None = None
        self.server_version: str | None = None  # what the server answered to GetVersion

    @property
    def lite(self) -> bool:
        return self.server_uri is None

    def configuration(self) -> dict[str, Any]:
        deployment = "milvus-lite, a directory under the store dir" if self.lite else f"server {self.server_uri}"
        return settings.configuration(deployment)

    def engine(self) -> dict[str, str]:
        pymilvus = importlib.metadata.version("pymilvus")
        if self.lite:
            return {"name": "milvus-lite", "version": f"milvus-lite {importlib.metadata.version('milvus-lite')}, "
                                                      f"pymilvus {pymilvus}"}
        server = self.server_version or "unknown"
        name = "milvus-lite" if server.startswith(LITE_VERSION_PREFIX) else "milvus"
        return {"name": name, "version": f"server {server}, pymilvus {pymilvus}"}

    def _uri(self, directory: Path) -> str:
        return str(directory / settings.LITE_FILE) if self.server_uri is None else self.server_uri

    def _marker(self, corpus: Corpus) -> dict[str, str]:
        return {"fixture_sha256": corpus.fixture_sha256, "configuration_sha256": sha256_canonical(self.configuration())}

    def _connect(self, directory: Path) -> Collection:
        self.directory = directory
        self.collection = connect(self._uri(directory), os.environ.get(settings.TOKEN_VARIABLE), lite=self.lite)
        self.server_version = self.collection.version
        return self.collection

    def build(self, corpus: Corpus, directory: Path) -> bool:
        changed = self._connect(directory).ensure(corpus, self._marker(corpus))
        self.close()
        return changed

    def open(self, corpus: Corpus, directory: Path) -> None:
        self._connect(directory).require(corpus, self._marker(corpus))
        self.close()

    def close(self) -> None:
        if self.collection is not None:
            self.collection.close()
            self.collection = None

    def _searching(self) -> Collection:
        if self.collection is None:
            assert self.directory is not None, "build or open the system first"
            self._connect(self.directory).load()
        assert self.collection is not None
        return self.collection

    def parts(self) -> dict[str, Path]:
        if not self.lite or self.directory is None:
            return {}
        return {"milvus-lite": self.directory / settings.LITE_FILE}

    def attested(self) -> dict[str, Any]:
        if self.lite or self.collection is None:
            return {}
        return {"server": self.server_uri, **self.collection.description()}

    def search(self, mode: str, text: str, vector: NDArray[np.float32] | None, top_k: int) -> list[Result]:
        collection, depth = self._searching(), top_k + settings.EXTRA
        if mode == "fts_only":
            return [Result(d, s) for d, s in _ranked(collection.lexical(text, depth), top_k)]
        assert vector is not None
        if mode == "vector_only":
            return [Result(d, s) for d, s in _ranked(collection.dense(vector, depth), top_k)]
        lanes = {"lexical": collection.lexical(text, settings.CANDIDATE_DEPTH),
                 "dense": collection.dense(vector, settings.CANDIDATE_DEPTH)}
        ranks = {name: {doc: (rank, score) for rank, (doc, score) in enumerate(_ranked(hits, len(hits)), start=1)}
                 for name, hits in lanes.items()}
        fused = _ranked(collection.hybrid(text, vector, settings.CANDIDATE_DEPTH, settings.RRF_K, depth), top_k)
        return [Result(doc, score, {name: ranks[name].get(doc, (None, None)) for name in lanes})
                for doc, score in fused]
