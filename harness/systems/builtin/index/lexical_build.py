"""The BM25 index built from documents given a chunk at a time, in compact arrays: no Python object per token.

It is the index bm25s builds from every document's token ids at once (`BM25.index`), to the byte: the vocabulary
numbered in sorted order with the empty token last, bm25s's arithmetic for each (document, term) weight (Lucene
idf in float64 rounded to float32; w = idf * tf / (tf + k1 * (1 - b + b * dl / avgdl)) in float64, rounded to
float32) and its column-major layout (each term's documents in ascending order). `test_lexical_build` holds the two
to the same saved files. Held meanwhile: a term, document and frequency per distinct (document, term) pair.
"""

import math
from collections.abc import Sequence

import bm25s
import numpy as np
from numpy.typing import NDArray

from harness.systems.builtin.config.search_config import LexicalConfig
from harness.systems.builtin.index.lexical import LexicalIndex
from harness.systems.builtin.index.tokenizer import Tokenizer

STOPWORD = -1


class LexicalBuilder:
    def __init__(self, config: LexicalConfig) -> None:
        if config.method != "lucene":
            raise ValueError(f"the chunked builder computes bm25s's 'lucene' weights, not {config.method!r}")
        self.config = config
        self.tokenizer = Tokenizer(config)
        self._terms: dict[str, int] = {}  # term -> number in order of first appearance
        self._words: dict[str, int] = {}  # word as the pattern finds it -> its term's number, or STOPWORD
        self._pairs: list[tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.int32]]] = []  # term, doc, tf
        self._lengths: list[NDArray[np.int64]] = []
        self._documents = 0

    def _number(self, word: str) -> int:
        term = self.tokenizer.term(word)
        number = STOPWORD if term is None else self._terms.setdefault(term, len(self._terms))
        self._words[word] = number
        return number

    def add(self, texts: Sequence[str]) -> None:
        """The next documents, in order."""
        known, numbers, counts = self._words, [], []
        for text in texts:
            words = self.tokenizer.words(text)
            numbers.extend([known[w] if w in known else self._number(w) for w in words])
            counts.append(len(words))
        terms = np.array(numbers, dtype=np.int64)
        documents = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
        kept = terms != STOPWORD
        terms, documents = terms[kept], documents[kept]
        self._lengths.append(np.bincount(documents, minlength=len(counts)).astype(np.int64))
        pairs, frequencies = np.unique((documents << 32) | terms, return_counts=True)
        self._pairs.append(((pairs & 0xFFFFFFFF).astype(np.int32), ((pairs >> 32) + self._documents).astype(np.int32),
                            frequencies.astype(np.int32)))
        self._documents += len(counts)

    def finish(self) -> LexicalIndex:
        config, n = self.config, self._documents
        lengths = np.concatenate(self._lengths) if self._lengths else np.zeros(0, dtype=np.int64)
        vocabulary = {term: i for i, term in enumerate(sorted(self._terms))}
        renumber = np.array([vocabulary[term] for term in self._terms], dtype=np.int32)
        frequencies = np.zeros(len(vocabulary), dtype=np.int64)
        for terms, _, _ in self._pairs:
            frequencies += np.bincount(renumber[terms], minlength=len(vocabulary))
        idf = np.zeros(len(vocabulary), dtype=np.float32)
        for term, df in enumerate(frequencies.tolist()):
            if df:
                idf[term] = math.log(1 + (n - df + 0.5) / (df + 0.5))
        norm = config.k1 * ((1 - config.b) + config.b * lengths / lengths.mean())
        indptr = np.zeros(len(vocabulary) + 1, dtype=np.int64)
        np.cumsum(frequencies, out=indptr[1:])
        data, indices = np.empty(indptr[-1], dtype=np.float32), np.empty(indptr[-1], dtype=np.int32)
        heads = indptr[:-1].copy()
        while self._pairs:
            terms, documents, tfs = self._pairs.pop(0)
            terms = renumber[terms]
            order = np.argsort(terms, kind="stable")  # each term's documents stay in ascending order
            terms, documents, tf = terms[order], documents[order], tfs[order].astype(np.float64)
            counts = np.bincount(terms, minlength=len(vocabulary))
            position = heads[terms] + np.arange(terms.size) - (np.cumsum(counts) - counts)[terms]
            data[position] = idf[terms] * (tf / (norm[documents] + tf))
            indices[position] = documents
            heads += counts
        bm25 = bm25s.BM25(k1=config.k1, b=config.b, method=config.method)
        bm25.scores = {"data": data, "indices": indices, "indptr": indptr, "num_docs": n}
        bm25.nonoccurrence_array = None
        if "" not in vocabulary:
            vocabulary[""] = max(vocabulary.values()) + 1
        bm25.vocab_dict = vocabulary
        bm25.unique_token_ids_set = set(vocabulary.values())
        return LexicalIndex(bm25, self.tokenizer)
