"""A three-mode retrieval system of its own, on scikit-learn: TF-IDF cosine, exact dense inner product, and RRF.

fts_only ranks the documents that share a term with the query by the cosine of TF-IDF vectors of title + text
(scikit-learn's TfidfVectorizer, every argument stated in `configuration()`); vector_only by the float32 inner
product of the fixture's vectors with the query's, over every document; hybrid fuses each lane's top
`candidate_depth` by reciprocal rank fusion. Ties go to the lower doc id. The directory holds the fitted
vocabulary and idf and the documents' TF-IDF matrix (JSON and .npy, no pickle), and a manifest, written last,
naming the corpus and configuration they were built from. Needs scikit-learn: pip install -e '.[examples]'.
"""

import json
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.feature_extraction.text import TfidfVectorizer

from harness.systems.plugin import DENSE_EXACT, Corpus, Result

VECTORIZER: dict[str, Any] = {  # every argument of TfidfVectorizer, so no library default decides a ranking
    "input": "content", "encoding": "utf-8", "decode_error": "strict", "strip_accents": "unicode",
    "lowercase": True, "preprocessor": None, "tokenizer": None, "analyzer": "word", "stop_words": "english",
    "token_pattern": r"(?u)\b\w\w+\b", "ngram_range": [1, 1], "max_df": 1.0, "min_df": 1, "max_features": None,
    "vocabulary": None, "binary": False, "dtype": "float64", "norm": "l2", "use_idf": True, "smooth_idf": True,
    "sublinear_tf": True,
}
RRF_K, CANDIDATE_DEPTH = 60, 100
FUSION = {"method": "rrf", "k": RRF_K, "candidate_depth": CANDIDATE_DEPTH}
FILES = {"vocabulary": "vocabulary.json", "idf": "idf.npy", "data": "tfidf-data.npy",
         "indices": "tfidf-indices.npy", "indptr": "tfidf-indptr.npy", "manifest": "manifest.json"}
MATRIX = ("data", "indices", "indptr")  # the documents' TF-IDF rows, as scipy's CSR arrays


def vectorizer(vocabulary: dict[str, int] | None = None) -> TfidfVectorizer:
    arguments = {**VECTORIZER, "ngram_range": tuple(VECTORIZER["ngram_range"]), "vocabulary": vocabulary,
                 "dtype": np.dtype(VECTORIZER["dtype"]).type}
    return TfidfVectorizer(**arguments)


def differences(built: Any, now: Any, path: str = "") -> list[str]:
    if isinstance(built, dict) and isinstance(now, dict):
        return [d for key in sorted(built.keys() | now.keys())
                for d in differences(built.get(key), now.get(key), f"{path}.{key}".lstrip("."))]
    return [] if built == now else [f"{path} (built {built!r}, now {now!r})"]


class TfidfHybrid:
    name = "tfidf-hybrid"
    version = "1.0.0"
    modes = ("fts_only", "vector_only", "hybrid")
    # the validator replays the dense lane from the fixture's vectors and recomputes every fused score
    declarations: ClassVar = {"dense": DENSE_EXACT, "fusion": FUSION}

    def configuration(self) -> dict[str, Any]:
        return {"lexical": {"engine": "scikit-learn TfidfVectorizer", "text": "title + ' ' + text",
                            "vectorizer": VECTORIZER, "score": "cosine: inner product of l2-normalised TF-IDF rows",
                            "candidates": "documents with a positive score"},
                "dense": {"metric": "inner product", "dtype": "float32", "candidates": "every document"},
                "fusion": FUSION, "ties": "doc_id ascending"}

    def manifest(self, corpus: Corpus) -> dict[str, Any]:
        return {"corpus": {"namespace": corpus.namespace, "fixture_sha256": corpus.fixture_sha256,
                           "documents": len(corpus.doc_ids)}, "configuration": self.configuration()}

    def build(self, corpus: Corpus, directory: Path) -> bool:
        manifest = directory / FILES["manifest"]
        changed = not manifest.exists()  # without a manifest, nothing here is a complete build: write it all
        if changed:
            fitted = vectorizer()
            texts = [f"{title} {text}" for title, text in zip(corpus.titles, corpus.texts, strict=True)]
            matrix = sp.csr_array(fitted.fit_transform(texts))
            terms = sorted(fitted.vocabulary_, key=fitted.vocabulary_.__getitem__)  # in column order
            (directory / FILES["vocabulary"]).write_text(json.dumps(terms), encoding="utf-8")
            np.save(directory / FILES["idf"], fitted.idf_)
            for name in MATRIX:
                np.save(directory / FILES[name], getattr(matrix, name))
            partial = manifest.with_suffix(".partial")
            partial.write_text(json.dumps(self.manifest(corpus), indent=1, sort_keys=True), encoding="utf-8")
            partial.replace(manifest)
        self.open(corpus, directory)  # refuses a directory built from another corpus or configuration
        return changed

    def open(self, corpus: Corpus, directory: Path) -> None:
        if not (directory / FILES["manifest"]).exists():
            raise ValueError(f"{directory} holds no complete build (no {FILES['manifest']}): build it first")
        built = json.loads((directory / FILES["manifest"]).read_text(encoding="utf-8"))
        if differs := differences(built, self.manifest(corpus)):
            raise ValueError(f"{directory} was built from another corpus or configuration: {'; '.join(differs)}; "
                             "build in a new directory")
        terms = json.loads((directory / FILES["vocabulary"]).read_text(encoding="utf-8"))
        self.vectorizer = vectorizer({term: column for column, term in enumerate(terms)})
        self.vectorizer.idf_ = np.load(directory / FILES["idf"])
        arrays = tuple(np.load(directory / FILES[name]) for name in MATRIX)
        self.matrix = sp.csr_array(arrays, shape=(len(corpus.doc_ids), len(terms)))
        self.vectors, self.doc_ids, self.directory = corpus.vectors, corpus.doc_ids, directory
        self.id_rank = np.argsort(np.argsort(np.array(corpus.doc_ids)))  # each document's place in doc id order

    def parts(self) -> dict[str, Path]:
        return {name: self.directory / file for name, file in FILES.items()}

    def lexical_scores(self, text: str) -> NDArray[np.float64]:
        query = self.vectorizer.transform([text]).toarray().ravel()
        return np.asarray(self.matrix @ query)

    def best(self, scores: NDArray[Any], candidates: NDArray[np.intp], depth: int) -> list[tuple[int, float]]:
        order = candidates[np.lexsort((self.id_rank[candidates], -scores[candidates]))][:depth]
        return [(int(i), float(scores[i])) for i in order]

    def lexical(self, text: str, depth: int) -> list[tuple[int, float]]:
        scores = self.lexical_scores(text)
        return self.best(scores, np.flatnonzero(scores > 0), depth)

    def dense(self, vector: NDArray[np.float32] | None, depth: int) -> list[tuple[int, float]]:
        assert vector is not None  # modes with a dense lane always get the fixture's query vector
        return self.best(self.vectors @ vector, np.arange(len(self.doc_ids)), depth)

    def search(self, mode: str, text: str, vector: NDArray[np.float32] | None, top_k: int) -> list[Result]:
        if mode != "hybrid":
            ranked = self.lexical(text, top_k) if mode == "fts_only" else self.dense(vector, top_k)
            return [Result(self.doc_ids[i], score) for i, score in ranked]
        lanes = {"lexical": self.lexical(text, CANDIDATE_DEPTH), "dense": self.dense(vector, CANDIDATE_DEPTH)}
        fused: dict[int, float] = {}
        evidence: dict[int, dict[str, tuple[int | None, float | None]]] = {}
        for lane, ranked in lanes.items():  # lexical first, then dense: the order the validator sums in
            for rank, (i, score) in enumerate(ranked, start=1):
                fused[i] = fused.get(i, 0.0) + 1.0 / (RRF_K + rank)
                evidence.setdefault(i, {})[lane] = (rank, score)
        best = sorted(fused, key=lambda i: (-fused[i], self.doc_ids[i]))[:top_k]
        return [Result(self.doc_ids[i], fused[i], evidence[i]) for i in best]


SYSTEM = TfidfHybrid()
