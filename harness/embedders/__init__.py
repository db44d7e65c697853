"""Embedders: one interface, two real backends (sentence-transformers in process, Ollama over HTTP)."""

from .base import Embedder, EmbeddingRequest, RawEmbedding
from .select import make_embedder

__all__ = ["Embedder", "EmbeddingRequest", "RawEmbedding", "make_embedder"]
