"""The embedder interface."""

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class EmbeddingRequest:
    text_id: str  # "document:<id>" or "query:<id>", named in every error
    prefix: str
    semantic_text: str

    @property
    def prompt(self) -> str:
        return self.prefix + self.semantic_text


@dataclass(frozen=True)
class RawEmbedding:
    values: list[float] | NDArray[np.floating]
    # Set when the backend had to embed a shortened prompt: the semantic-text code points kept.
    embedded_chars: int | None = None
    # Whether the model cut the prompt at its own token limit, when the backend can tell.
    model_truncated: bool | None = None


class Embedder(Protocol):
    backend: str
    model: str

    def identity(self) -> dict[str, Any]:
        """Everything that determines the vectors; it keys the cache and goes into the fixture."""
        ...

    def endpoint(self) -> str | None:
        """Where the model runs, when that is not part of its identity (an Ollama host)."""
        ...

    def truncation_policy(self) -> dict[str, Any]:
        ...

    def embed(self, requests: list[EmbeddingRequest]) -> Iterator[RawEmbedding]:
        """Yield one result per request, in order, as each is ready, so the caller can cache it at once."""
        ...
