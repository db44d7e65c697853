"""Embedders: one interface, two real backends (sentence-transformers in process, Ollama over HTTP)."""

from harness.embedding.embedders.base import Embedder, EmbeddingRequest, RawEmbedding
from harness.embedding.embedders.select import make_embedder

__all__ = ["Embedder", "EmbeddingRequest", "RawEmbedding", "make_embedder"]
