"""Embed every text once: cached prompts are read back, missing ones embedded, checked and cached."""

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from harness.embedding.cache import CachedVector, EmbeddingCache
from harness.embedding.embedders.base import Embedder, EmbeddingRequest
from harness.embedding.progress import embedding_progress
from harness.embedding.vectors import check_and_normalize
from harness.errors import EmbeddingError, InvalidVectorError


@dataclass(frozen=True)
class EmbeddingResult:
    vectors: NDArray[np.float32]
    dimensions: int
    embedded: int
    from_cache: int
    torn_tail_bytes: int
    retried: list[dict[str, Any]]
    model_truncated: int | None  # None when the backend cannot tell


def _missing(requests: list[EmbeddingRequest], cache: EmbeddingCache) -> list[EmbeddingRequest]:
    unique: dict[str, EmbeddingRequest] = {}
    for request in requests:
        unique.setdefault(request.prompt, request)
    return [request for prompt, request in unique.items() if cache.get(prompt) is None]


def _embed_missing(missing: list[EmbeddingRequest], embedder: Embedder, cache: EmbeddingCache,
                   dimensions: int | None, progress: bool) -> int | None:
    if not missing:  # never start the embedder (and load a model) for nothing
        return dimensions
    arrange = getattr(embedder, "arrange", None)  # an embedder that batches says in which order it wants them
    if arrange is not None:
        missing = arrange(missing)
    with embedding_progress(len(missing), "embedding", progress) as bar:
        # Each vector is checked and durably cached as soon as it arrives, before the next is embedded.
        for request, raw in zip(missing, embedder.embed(missing), strict=True):
            vector = check_and_normalize(request.text_id, raw.values, dimensions)
            dimensions = int(vector.shape[0])
            cache.put(request.prompt, CachedVector(vector, raw.embedded_chars, raw.model_truncated))
            bar.update(1)
    return dimensions


def _assemble(requests: list[EmbeddingRequest], found: list[CachedVector], dimensions: int,
              embedded: int, from_cache: int, torn: int) -> EmbeddingResult:
    retried = []
    for request, cached in zip(requests, found, strict=True):
        if cached.vector.shape[0] != dimensions:
            raise InvalidVectorError(request.text_id, f"cached vector has {cached.vector.shape[0]} dimensions, "
                                     f"the first has {dimensions} (dimension drift)")
        if cached.embedded_chars is not None:
            retried.append({"text_id": request.text_id, "embedded_chars": cached.embedded_chars})
    flags = [cached.model_truncated for cached in found]
    return EmbeddingResult(
        vectors=np.vstack([cached.vector for cached in found]).astype("<f4"),
        dimensions=dimensions,
        embedded=embedded,
        from_cache=from_cache,
        torn_tail_bytes=torn,
        retried=retried,
        model_truncated=None if None in flags else sum(bool(flag) for flag in flags),
    )


def embed_all(requests: list[EmbeddingRequest], embedder: Embedder, cache_dir: Path, *,
              progress: bool = True) -> EmbeddingResult:
    if not requests:
        raise EmbeddingError("there is nothing to embed")
    cache = EmbeddingCache(cache_dir, embedder.identity())
    report = cache.open()
    try:
        if report.torn_tail_bytes:
            print(f"embedding cache {cache.path}: cut a torn final record of {report.torn_tail_bytes} bytes "
                  "(a build or the machine stopped while writing it); that text is embedded again", file=sys.stderr)
        missing = _missing(requests, cache)
        from_cache = sum(cache.get(request.prompt) is not None for request in requests)
        first = next((cached for r in requests if (cached := cache.get(r.prompt)) is not None), None)
        dimensions = _embed_missing(missing, embedder, cache, None if first is None else first.vector.shape[0],
                                    progress)
        found = [cache.get(request.prompt) for request in requests]
    finally:
        cache.close()
    assert dimensions is not None and all(cached is not None for cached in found)
    return _assemble(requests, found, dimensions, len(missing), from_cache, report.torn_tail_bytes)  # type: ignore[arg-type]
