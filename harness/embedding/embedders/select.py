"""Pick the embedder from the command line or the environment (SCIFACT_EMBED_MODEL)."""

import os

from harness.embedding.embedders.backends import BACKENDS
from harness.embedding.embedders.base import Embedder
from harness.errors import HarnessError


def make_embedder(backend: str = "local", model: str | None = None, host: str | None = None,
                  name: str | None = None) -> Embedder:
    """`name` declares a local model's name (default: the packaged name, a Hub id, or a directory's own name)."""
    chosen = model or os.environ.get("SCIFACT_EMBED_MODEL") or None
    if backend == "local":
        from harness.embedding.embedders.local import LocalEmbedder
        from harness.embedding.embedders.model_source import DEFAULT_MODEL

        return LocalEmbedder(chosen or DEFAULT_MODEL, name=name)
    if backend == "ollama":
        from harness.embedding.embedders.ollama import DEFAULT_MODEL as OLLAMA_DEFAULT
        from harness.embedding.embedders.ollama import OllamaEmbedder

        if name is not None:
            raise HarnessError("--model-name declares a local model's name; an Ollama model is named by the server")
        return OllamaEmbedder(chosen or OLLAMA_DEFAULT, host=host)
    raise HarnessError(f"unknown embedder {backend!r}; choose one of {', '.join(BACKENDS)}")


def model_prompts(embedder: Embedder) -> dict[str, str]:
    """The prompts a local model of one's own declares by name (none for the packaged model or an Ollama model)."""
    shape = embedder.identity().get("vector_shape") or {}
    prompts = shape.get("prompts") or {}
    return {str(name): str(text) for name, text in prompts.items()}
