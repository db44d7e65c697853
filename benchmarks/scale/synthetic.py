"""Synthetic BEIR-shaped corpora: Zipf-distributed words, SciFact-like lengths, random unit vectors, all seeded.

Nothing here embeds text: the vectors are random unit vectors (384 dimensions, float32), so the dense lane costs
what it costs on real vectors while the lexical lane sees a Zipf vocabulary. The same size and seed give the same
corpus in every process, so each measured phase regenerates it instead of reading it from disk. Titles and texts are
held as word numbers (two bytes a word) and each string is made when it is read, so holding a million documents
costs their vectors and about 400 MB, not millions of Python strings.
"""

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast, overload

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


class Sentences(Sequence[str]):
    """Sentences held as word numbers and bounds; each string is joined when it is read."""

    def __init__(self, words: list[str], tokens: NDArray[np.uint16], bounds: NDArray[np.int64]) -> None:
        self._words, self._tokens, self._bounds = np.array(words, dtype=object), tokens, bounds

    def __len__(self) -> int:
        return int(self._bounds.size - 1)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if not -len(self) <= index < len(self):
            raise IndexError(index)
        index %= len(self)
        return " ".join(self._words[self._tokens[self._bounds[index]:self._bounds[index + 1]]].tolist())


class Documents(Sequence[dict[str, str]]):
    """The fixture's documents, each made when it is read (the fields the store reads of a fixture document)."""

    def __init__(self, doc_ids: list[str], titles: Sentences, texts: Sentences) -> None:
        self._doc_ids, self._titles, self._texts = doc_ids, titles, texts

    def __len__(self) -> int:
        return len(self._doc_ids)

    @overload
    def __getitem__(self, index: int) -> dict[str, str]: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict[str, str]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, str] | list[dict[str, str]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return {"doc_id": self._doc_ids[index], "title": self._titles[index], "text": self._texts[index]}

    def __iter__(self) -> Iterator[dict[str, str]]:
        return (self[i] for i in range(len(self)))


@dataclass(frozen=True)
class SyntheticCorpus:
    size: int
    seed: int
    doc_ids: list[str]
    titles: Sentences
    texts: Sentences
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
        data = {"documents": Documents(self.doc_ids, self.titles, self.texts),
                "queries": [{"query_id": q, "text": t} for q, t in zip(self.query_ids, self.query_texts, strict=True)],
                "vectors": {"dimensions": DIMENSIONS},
                "embedding": {"identity_sha256": sha256_canonical({"synthetic": "random unit vectors"})}}
        return CorpusFixture(path, digest, data, self.vectors, self.query_vectors)

    def corpus(self) -> Corpus:
        """The corpus as a system of its own receives it (the plugin interface's Corpus; titles and texts are read by
        index, so they stay joined on demand rather than copied into tuples of strings)."""
        return Corpus(tuple(self.doc_ids), cast(tuple[str, ...], self.titles), cast(tuple[str, ...], self.texts),
                      self.vectors, NAMESPACE, sha256_canonical(self.parameters()))


def vocabulary(rng: np.random.Generator) -> list[str]:
    """VOCABULARY distinct pronounceable words in a seeded random order of frequency rank."""
    base = len(_SYLLABLES)
    words = ["".join(_SYLLABLES[(i // base ** k) % base] for k in range(3)) for i in range(VOCABULARY)]
    return [str(word) for word in rng.permutation(np.array(words, dtype=object))]


def _unit_rows(rng: np.random.Generator, rows: int) -> NDArray[np.float32]:
    matrix = np.empty((rows, DIMENSIONS), dtype=np.float32)
    for start in range(0, rows, _CHUNK):
        block = rng.standard_normal((min(_CHUNK, rows - start), DIMENSIONS)).astype(np.float64)
        matrix[start:start + block.shape[0]] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return matrix


def _sentences(rng: np.random.Generator, words: list[str], lengths: NDArray[np.int64]) -> Sentences:
    ranks = np.arange(1, VOCABULARY + 1, dtype=np.float64)
    weights = ranks ** -ZIPF_EXPONENT
    cumulative = np.cumsum(weights / weights.sum())
    bounds = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    tokens = np.empty(int(bounds[-1]), dtype=np.uint16)  # VOCABULARY fits in two bytes
    for start in range(0, lengths.size, _CHUNK):
        chunk = lengths[start:start + _CHUNK]
        drawn = np.minimum(np.searchsorted(cumulative, rng.random(int(chunk.sum()))), VOCABULARY - 1)
        tokens[bounds[start]:bounds[start] + drawn.size] = drawn
    return Sentences(words, tokens, bounds)


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
                           [f"q{i}" for i in range(queries)], list(query_texts), _unit_rows(rng, queries))
