"""Synthetic BEIR-shaped corpora: Zipf-distributed words, SciFact-like lengths, random unit vectors, all seeded.

Nothing here embeds text: the vectors are random unit vectors (384 dimensions, float32), so the dense lane costs
what it costs on real vectors while the lexical lane sees a Zipf vocabulary. The same size and seed give the same
corpus in every process, so each measured phase regenerates it instead of reading it from disk.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from harness.fixture.corpus_fixture import CorpusFixture
from harness.hashing import sha256_canonical
from harness.systems.plugin.api import Corpus

DIMENSIONS = 384
VOCABULARY = 30_000
ZIPF_EXPONENT = 1.07
MEDIAN_DOCUMENT_TOKENS = 180  # SciFact's abstracts run to about 200 words; lengths are log-normal around this
QUERY_COUNT = 300
NAMESPACE = "synthetic-scale"
_SYLLABLES = [c + v for c in "bcdfghjklmnprstvwxz" for v in "aeiou"]
_CHUNK = 20_000


@dataclass(frozen=True)
class SyntheticCorpus:
    size: int
    seed: int
    doc_ids: list[str]
    titles: list[str]
    texts: list[str]
    vectors: NDArray[np.float32]  # one unit row per document
    query_ids: list[str]
    query_texts: list[str]
    query_vectors: NDArray[np.float32]

    def parameters(self) -> dict[str, Any]:
        return {"documents": self.size, "queries": len(self.query_ids), "seed": self.seed, "dimensions": DIMENSIONS,
                "vocabulary": VOCABULARY, "zipf_exponent": ZIPF_EXPONENT,
                "median_document_tokens": MEDIAN_DOCUMENT_TOKENS}

    def fixture(self, path: Path) -> CorpusFixture:
        """The corpus as the built-in store reads a fixture, held in memory: the fields the store binds to and
        checks its facts against (no file is written, so no JSON parsing or schema check is measured)."""
        digest = sha256_canonical(self.parameters())
        data = {"documents": [{"doc_id": d, "title": t, "text": x}
                              for d, t, x in zip(self.doc_ids, self.titles, self.texts, strict=True)],
                "queries": [{"query_id": q, "text": t} for q, t in zip(self.query_ids, self.query_texts, strict=True)],
                "vectors": {"dimensions": DIMENSIONS},
                "embedding": {"identity_sha256": sha256_canonical({"synthetic": "random unit vectors"})}}
        return CorpusFixture(path, digest, data, self.vectors, self.query_vectors)

    def corpus(self) -> Corpus:
        """The corpus as a system of its own receives it (the plugin interface's Corpus)."""
        return Corpus(tuple(self.doc_ids), tuple(self.titles), tuple(self.texts), self.vectors, NAMESPACE,
                      sha256_canonical(self.parameters()))


def vocabulary(rng: np.random.Generator) -> NDArray[np.object_]:
    """VOCABULARY distinct pronounceable words in a seeded random order of frequency rank."""
    base = len(_SYLLABLES)
    words = ["".join(_SYLLABLES[(i // base ** k) % base] for k in range(3)) for i in range(VOCABULARY)]
    return np.array(rng.permutation(np.array(words, dtype=object)), dtype=object)


def _unit_rows(rng: np.random.Generator, rows: int) -> NDArray[np.float32]:
    matrix = np.empty((rows, DIMENSIONS), dtype=np.float32)
    for start in range(0, rows, _CHUNK):
        block = rng.standard_normal((min(_CHUNK, rows - start), DIMENSIONS)).astype(np.float64)
        matrix[start:start + block.shape[0]] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return matrix


def _sentences(rng: np.random.Generator, words: NDArray[np.object_], lengths: NDArray[np.int64]) -> list[str]:
    ranks = np.arange(1, VOCABULARY + 1, dtype=np.float64)
    weights = ranks ** -ZIPF_EXPONENT
    cumulative = np.cumsum(weights / weights.sum())
    out: list[str] = []
    for start in range(0, lengths.size, _CHUNK):
        chunk = lengths[start:start + _CHUNK]
        drawn = np.minimum(np.searchsorted(cumulative, rng.random(int(chunk.sum()))), VOCABULARY - 1)
        tokens = words[drawn]
        bounds = np.concatenate(([0], np.cumsum(chunk)))
        out.extend(" ".join(tokens[bounds[i]:bounds[i + 1]]) for i in range(chunk.size))
    return out


def generate(size: int, *, seed: int = 0, queries: int = QUERY_COUNT) -> SyntheticCorpus:
    if size < 1 or queries < 1:
        raise ValueError(f"a synthetic corpus needs at least one document and one query, not {size} and {queries}")
    rng = np.random.default_rng([seed, size])
    words = vocabulary(rng)
    body = np.clip(np.rint(rng.lognormal(np.log(MEDIAN_DOCUMENT_TOKENS), 0.45, size)), 20, 1000).astype(np.int64)
    texts = _sentences(rng, words, body)
    titles = _sentences(rng, words, rng.integers(5, 20, size))
    query_texts = _sentences(rng, words, rng.integers(5, 20, queries))
    return SyntheticCorpus(size, seed, [str(i) for i in range(size)], titles, texts, _unit_rows(rng, size),
                           [f"q{i}" for i in range(queries)], query_texts, _unit_rows(rng, queries))
