"""BM25 (Lucene variant) over the fixture's document text, written from its definition.

Tokens: the store's tokenizer record gives the rule: the token pattern applied to the lowercased text,
the recorded stopwords removed, then the Snowball English stemmer (PyStemmer). A document's text is
`title.strip() + " " + text.strip()`; its length dl counts its tokens, avgdl is the mean over every
document. For a term t with document frequency df among N documents and frequency tf in a document:

    idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5))
    w(t, d) = idf(t) * tf / (tf + k1 * (1 - b + b * dl / avgdl))

A query's score for a document is the sum of w over the query's tokens that occur in the corpus,
repeated tokens counted each time. Scores are computed in float64, and also as a float32 engine states
its arithmetic (bm25s: idf rounded to float32, w = idf * tf-part rounded to float32, the terms added
in float32 in query-token order): when the run's scores equal that bit for bit, the replay is exact.
"""

import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import Stemmer
from numpy.typing import NDArray

STEMMER_ALGORITHM = "english"


@dataclass(frozen=True)
class Tokenizer:
    pattern: str
    lowercase: bool
    stopwords: frozenset[str]

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> "Tokenizer":
        stemmer = record.get("stemmer") or {}
        if stemmer.get("library") != "PyStemmer" or stemmer.get("algorithm") != STEMMER_ALGORITHM:
            raise ValueError(f"tokenizer record names stemmer {stemmer!r}; this replay knows PyStemmer 'english'")
        return cls(str(record["token_pattern"]), bool(record["lowercase"]), frozenset(record["stopwords"]))

    def words(self, text: str) -> list[str]:
        """What the pattern finds, lowercased as recorded; stopwords still in, nothing stemmed."""
        found: list[str] = _compiled(self.pattern).findall(text.lower() if self.lowercase else text)
        return found

    def term(self, word: str) -> str | None:
        """One word's token: None for a stopword, else its stem (`tokens` is this, word by word)."""
        return None if word in self.stopwords else str(_stemmer().stemWord(word))

    def tokens(self, text: str) -> list[str]:
        return list(_stemmer().stemWords([w for w in self.words(text) if w not in self.stopwords]))


@functools.cache
def _compiled(pattern: str) -> "re.Pattern[str]":
    return re.compile(pattern)


@functools.cache
def _stemmer() -> Any:
    return Stemmer.Stemmer(STEMMER_ALGORITHM)


@dataclass(frozen=True)
class QueryScores:
    tokens: list[str]  # the query's tokens that occur in the corpus, in order, repeats kept
    scores: NDArray[np.float64]  # one per document
    engine: NDArray[np.float32]  # the same sum in the engine's stated float32 arithmetic
    distinct: list[str]  # the distinct tokens: a document's length and frequencies of these decide equal scores


CHUNK = 4096
STOPWORD = -1


def _chunks(texts: Iterable[str]) -> Iterator[list[str]]:
    chunk: list[str] = []
    for text in texts:
        chunk.append(text)
        if len(chunk) == CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


class BM25:
    """Postings held as flat arrays (each term's documents ascending, with their frequencies), built a chunk of
    documents at a time; a query's weights are computed from them when it is scored."""

    def __init__(self, texts: Iterable[str], tokenizer: Tokenizer, k1: float, b: float) -> None:
        self.tokenizer = tokenizer
        self._terms: dict[str, int] = {}
        pairs: list[tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.int32]]] = []  # term, document, tf
        lengths: list[NDArray[np.int64]] = []
        self.count = 0
        known: dict[str, int] = {}  # each word met -> its term's number, STOPWORD for a stopword

        def number(word: str) -> int:
            term = tokenizer.term(word)
            known[word] = STOPWORD if term is None else self._terms.setdefault(term, len(self._terms))
            return known[word]

        for chunk in _chunks(texts):
            numbers, sizes = [], []
            for text in chunk:
                words = tokenizer.words(text)
                numbers.extend([known[w] if w in known else number(w) for w in words])
                sizes.append(len(words))
            terms = np.array(numbers, dtype=np.int64)
            documents = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
            kept = terms != STOPWORD
            keys, tfs = np.unique((documents[kept] << 32) | terms[kept], return_counts=True)
            pairs.append(((keys & 0xFFFFFFFF).astype(np.int32), ((keys >> 32) + self.count).astype(np.int32),
                          tfs.astype(np.int32)))
            lengths.append(np.bincount(documents[kept], minlength=len(sizes)).astype(np.int64))
            self.count += len(sizes)
        self.lengths = np.concatenate(lengths) if lengths else np.zeros(0, dtype=np.int64)
        average = float(self.lengths.mean()) if self.count else 0.0
        self._norm = k1 * ((1.0 - b) + b * self.lengths / average) if average else np.full(self.count, k1 * (1.0 - b))
        frequencies = np.zeros(len(self._terms), dtype=np.int64)
        for held, _, _ in pairs:
            frequencies += np.bincount(held, minlength=len(self._terms))
        self._idf = [float(np.log(1.0 + (self.count - df + 0.5) / (df + 0.5))) for df in frequencies.tolist()]
        self._starts = np.zeros(len(self._terms) + 1, dtype=np.int64)
        np.cumsum(frequencies, out=self._starts[1:])
        self._docs = np.empty(self._starts[-1], dtype=np.int32)
        self._tfs = np.empty(self._starts[-1], dtype=np.int32)
        heads = self._starts[:-1].copy()
        while pairs:
            held, held_documents, held_tfs = pairs.pop(0)
            order = np.argsort(held, kind="stable")  # a term's documents stay in ascending order
            held = held[order]
            counts = np.bincount(held, minlength=len(self._terms))
            position = heads[held] + np.arange(held.size) - (np.cumsum(counts) - counts)[held]
            self._docs[position], self._tfs[position] = held_documents[order], held_tfs[order]
            heads += counts

    def _postings(self, term: str) -> tuple[NDArray[np.int32], NDArray[np.int32]]:
        column = self._terms[term]
        start, end = self._starts[column], self._starts[column + 1]
        return self._docs[start:end], self._tfs[start:end]

    def score(self, query: str) -> QueryScores:
        tokens = [t for t in self.tokenizer.tokens(query) if t in self._terms]
        scores = np.zeros(self.count, dtype=np.float64)
        engine = np.zeros(self.count, dtype=np.float32)
        distinct = list(dict.fromkeys(tokens))
        weights: dict[str, tuple[NDArray[np.int32], NDArray[np.float64], NDArray[np.float32]]] = {}
        for term in distinct:
            docs, tfs = self._postings(term)
            idf = self._idf[self._terms[term]]
            tf_part = tfs / (self._norm[docs] + tfs)
            weights[term] = docs, idf * tf_part, (float(np.float32(idf)) * tf_part).astype(np.float32)
        for term in tokens:
            docs, weight, engine_weight = weights[term]
            scores[docs] += weight
            engine[docs] += engine_weight
        return QueryScores(tokens, scores, engine, distinct)

    def term_frequencies(self, terms: list[str], documents: NDArray[np.intp]) -> NDArray[np.int64]:
        """How often each term occurs in each of these documents (documents x terms)."""
        out = np.zeros((documents.size, len(terms)), dtype=np.int64)
        for column, term in enumerate(terms):
            docs, tfs = self._postings(term)
            found = np.minimum(np.searchsorted(docs, documents), max(docs.size - 1, 0))
            hit = docs[found] == documents if docs.size else np.zeros(documents.size, dtype=bool)
            out[hit, column] = tfs[found[hit]]
        return out
