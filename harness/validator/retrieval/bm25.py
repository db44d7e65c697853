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
from collections import Counter
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

    def tokens(self, text: str) -> list[str]:
        words = _compiled(self.pattern).findall(text.lower() if self.lowercase else text)
        return list(_stemmer().stemWords([w for w in words if w not in self.stopwords]))


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
    term_frequencies: NDArray[np.int64]  # documents x distinct query tokens: what decides equal scores


@dataclass(frozen=True)
class Postings:
    docs: NDArray[np.intp]
    tfs: NDArray[np.int64]
    weights: NDArray[np.float64]
    engine: NDArray[np.float32]


class BM25:
    def __init__(self, texts: list[str], tokenizer: Tokenizer, k1: float, b: float) -> None:
        self.tokenizer = tokenizer
        documents = [Counter(tokenizer.tokens(text)) for text in texts]
        self.count = len(documents)
        self.lengths = np.array([sum(c.values()) for c in documents], dtype=np.int64)
        average = float(self.lengths.mean()) if self.count else 0.0
        norm = k1 * ((1.0 - b) + b * self.lengths / average) if average else np.full(self.count, k1 * (1.0 - b))
        postings: dict[str, tuple[list[int], list[int]]] = {}
        for index, counts in enumerate(documents):
            for term, tf in counts.items():
                docs, tfs = postings.setdefault(term, ([], []))
                docs.append(index)
                tfs.append(tf)
        self._postings: dict[str, Postings] = {}
        for term, (docs, tfs) in postings.items():
            index_array, tf_array = np.array(docs, dtype=np.intp), np.array(tfs, dtype=np.int64)
            df = len(docs)
            idf = float(np.log(1.0 + (self.count - df + 0.5) / (df + 0.5)))
            tf_part = tf_array / (norm[index_array] + tf_array)
            engine = (float(np.float32(idf)) * tf_part).astype(np.float32)
            self._postings[term] = Postings(index_array, tf_array, idf * tf_part, engine)

    def score(self, query: str) -> QueryScores:
        tokens = [t for t in self.tokenizer.tokens(query) if t in self._postings]
        scores = np.zeros(self.count, dtype=np.float64)
        engine = np.zeros(self.count, dtype=np.float32)
        distinct = list(dict.fromkeys(tokens))
        frequencies = np.zeros((self.count, len(distinct)), dtype=np.int64)
        for column, term in enumerate(distinct):
            postings = self._postings[term]
            frequencies[postings.docs, column] = postings.tfs
        for term in tokens:
            postings = self._postings[term]
            scores[postings.docs] += postings.weights
            engine[postings.docs] += postings.engine
        return QueryScores(tokens, scores, engine, frequencies)
