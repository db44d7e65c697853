"""A three-mode retrieval system of its own whose hybrid is a convex combination of normalised lane scores.

fts_only ranks the documents that share a term with the query by bm25s's BM25 (Lucene's idf, k1 1.2, b 0.75) over
title + text, tokenized by bm25s (lowercase, words of two or more characters, English stop words, PyStemmer's
English stemmer); vector_only by the float32 inner product of the fixture's vectors with the query's, over every
document; hybrid takes each lane's top 100 and fuses them with harness.systems.plugin.fuse under the declared
fusion: 0.4 x the lexical lane's min-max normalised score + 0.6 x the dense lane's, a document a lane did not return
taking 0 from it. Ties go to the lower doc id. The directory holds bm25s's saved index and a manifest, written
last, naming the corpus and configuration it was built from. Needs nothing beyond the harness's own dependencies.
"""

import json
import shutil
from pathlib import Path
from typing import Any, ClassVar

import bm25s
import numpy as np
import Stemmer
from numpy.typing import NDArray

from harness.systems.plugin import DENSE_EXACT, Corpus, Result, fuse

LEXICAL = {"engine": "bm25s", "method": "lucene", "k1": 1.2, "b": 0.75, "text": "title + ' ' + text",
           "tokens": "bm25s.tokenize: lowercase, (?u)\\b\\w\\w+\\b, English stop words, PyStemmer english",
           "candidates": "documents with a positive score"}
FUSION = {"method": "convex", "weight": 0.6, "normalisation": "min-max", "candidate_depth": 100}
INDEX, MANIFEST = "bm25s-index", "manifest.json"
STEMMER = Stemmer.Stemmer("english")


def tokens(texts: list[str]) -> list[list[str]]:
    found: list[list[str]] = bm25s.tokenize(texts, lower=True, stopwords="en", stemmer=STEMMER, return_ids=False,
                                            show_progress=False)
    return found


class ConvexHybrid:
    name = "convex-hybrid"
    version = "1.0.0"
    modes = ("fts_only", "vector_only", "hybrid")
    # the validator replays the dense lane from the fixture's vectors and recomputes every fused score
    declarations: ClassVar[dict[str, Any]] = {"dense": DENSE_EXACT, "fusion": FUSION}

    def configuration(self) -> dict[str, Any]:
        return {"lexical": LEXICAL, "dense": {"metric": "inner product", "dtype": "float32",
                                              "candidates": "every document"},
                "fusion": self.declarations["fusion"], "ties": "doc_id ascending"}

    def manifest(self, corpus: Corpus) -> dict[str, Any]:
        return {"corpus": {"namespace": corpus.namespace, "fixture_sha256": corpus.fixture_sha256,
                           "documents": len(corpus.doc_ids)}, "configuration": self.configuration()}

    def build(self, corpus: Corpus, directory: Path) -> bool:
        changed = not (directory / MANIFEST).exists()  # without a manifest, nothing here is a complete build
        if changed:
            documents = tokens([f"{title} {text}" for title, text in zip(corpus.titles, corpus.texts, strict=True)])
            # a sorted vocabulary, so the saved index is the same bytes in every process
            vocabulary = {term: i for i, term in enumerate(sorted({t for terms in documents for t in terms}))}
            index = bm25s.BM25(k1=LEXICAL["k1"], b=LEXICAL["b"], method=LEXICAL["method"])
            index.index(([[vocabulary[t] for t in terms] for terms in documents], vocabulary), show_progress=False)
            shutil.rmtree(directory / INDEX, ignore_errors=True)
            index.save(str(directory / INDEX), show_progress=False)
            (directory / MANIFEST).write_text(json.dumps(self.manifest(corpus), indent=1, sort_keys=True),
                                              encoding="utf-8")
        self.open(corpus, directory)  # refuses a directory built from another corpus or configuration
        return changed

    def open(self, corpus: Corpus, directory: Path) -> None:
        if not (directory / MANIFEST).exists():
            raise ValueError(f"{directory} holds no complete build (no {MANIFEST}): build it first")
        built = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
        if built != self.manifest(corpus):
            raise ValueError(f"{directory} was built from another corpus or configuration: build in a new directory")
        self.index = bm25s.BM25.load(str(directory / INDEX), show_progress=False)
        self.vectors, self.doc_ids, self.directory = corpus.vectors, corpus.doc_ids, directory
        self.id_rank = np.argsort(np.argsort(np.array(corpus.doc_ids)))  # each document's place in doc id order

    def parts(self) -> dict[str, Path]:
        return {"index": self.directory / INDEX, "manifest": self.directory / MANIFEST}

    def best(self, scores: NDArray[Any], candidates: NDArray[np.intp], depth: int) -> list[tuple[str, float]]:
        order = candidates[np.lexsort((self.id_rank[candidates], -scores[candidates]))][:depth]
        return [(self.doc_ids[i], float(scores[i])) for i in order]

    def lexical(self, text: str, depth: int) -> list[tuple[str, float]]:
        known = self.index.get_tokens_ids(tokens([text])[0])
        if not known:
            return []
        scores = self.index.get_scores_from_ids(known)
        return self.best(scores, np.flatnonzero(scores > 0), depth)

    def dense(self, vector: NDArray[np.float32] | None, depth: int) -> list[tuple[str, float]]:
        assert vector is not None  # modes with a dense lane always get the fixture's query vector
        return self.best(self.vectors @ vector, np.arange(len(self.doc_ids)), depth)

    def search(self, mode: str, text: str, vector: NDArray[np.float32] | None, top_k: int) -> list[Result]:
        if mode != "hybrid":
            ranked = self.lexical(text, top_k) if mode == "fts_only" else self.dense(vector, top_k)
            return [Result(doc_id, score) for doc_id, score in ranked]
        fusion = self.declarations["fusion"]
        depth = fusion["candidate_depth"]
        return fuse(fusion, self.lexical(text, depth), self.dense(vector, depth), top_k)


SYSTEM = ConvexHybrid()
