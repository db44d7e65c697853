"""Pick the embedder from the command line or the environment (SCIFACT_EMBED_MODEL)."""

import os

from harness.embedding.embedders.backends import BACKENDS
from harness.embedding.embedders.base import Embedder
from harness.errors import HarnessError


def make_embedder(backend: str = "local", model: str | None = None, host: str | None = None) -> Embedder:
    chosen = model or os.environ.get("SCIFACT_EMBED_MODEL") or None
    if backend == "local":
        from harness.embedding.embedders.local import DEFAULT_MODEL, LocalEmbedder

        return LocalEmbedder(chosen or DEFAULT_MODEL)
    if backend == "ollama":
        from harness.embedding.embedders.ollama import DEFAULT_MODEL as OLLAMA_DEFAULT
        from harness.embedding.embedders.ollama import OllamaEmbedder

        return OllamaEmbedder(chosen or OLLAMA_DEFAULT, host=host)
    raise HarnessError(f"unknown embedder {backend!r}; choose one of {', '.join(BACKENDS)}")
