"""The three retrieval modes against independent recomputations on the tiny corpus.

Every expected value here is computed by the test itself (a small Lucene BM25, float64 cosine with
numpy, the RRF formula, a brute-force sort), never read back from the module under test.
"""

import dataclasses
import hashlib
import itertools
import json
import math
import shutil
import subprocess
import sys
from collections import Counter
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from bm25s.stopwords import STOPWORDS_EN
from numpy.typing import NDArray

from fixtures.archives import tiny_archive, tiny_members
from fixtures.systems import TextSearcher as Searcher
from harness.corpus.contract import Contract
from harness.embedding.embedders.local import LocalEmbedder
from harness.errors import HarnessError
from harness.evaluation.measures.query_vectors import UnknownQueryError
from harness.fixture.build import build_fixture
from harness.fixture.corpus_fixture import CorpusFixture, load_fixture
from harness.systems.builtin.config.search_config import (
    ConfigError,
    LexicalConfig,
    SearchConfig,
    unavailable_capabilities,
)
from harness.systems.builtin.index.dense import DenseIndex
from harness.systems.builtin.index.lexical import TOKENIZER_RECORD, LexicalIndex
from harness.systems.builtin.index.ranking import tie_ranks, top_k
from harness.systems.builtin.index.tokenizer import Tokenizer
from harness.systems.builtin.store.store import Store, build_store, store_digest
from harness.systems.fusion import rrf_score
from harness.systems.protocol import Hit, SearchOutcome

MODES = ("fts_only", "vector_only", "hybrid")
K1, B, RRF_K = 1.5, 0.75, 60
CORPUS, QUERIES, QRELS = "tiny/corpus.jsonl", "tiny/queries.jsonl", "tiny/qrels/test.tsv"
TWIN, ORIGINAL = "d11", "d01"
NO_TERM_QUERY = "The of and ???"  # every word a stopword, the rest punctuation: no indexable term
ALIEN_QUERY = "A query outside the test set."  # q99 in queries.jsonl, not a test query, so never embedded


# --------------------------------------------------------------------------------------------------
# Independent references


def sha256_prefixed(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def lexical_texts(fixture: CorpusFixture) -> dict[str, str]:
    """The lexical text of each document, by the documented rule (title, one space, text)."""
    return {d["doc_id"]: d["title"].strip() + " " + d["text"].strip() for d in fixture.data["documents"]}


def independent_bm25(doc_tokens: dict[str, list[str]], query_tokens: list[str]) -> dict[str, float]:
    """Lucene BM25 (no (k1 + 1) factor) in float64; document length = tokens after stopwords/stemming.
    A query term that occurs twice counts twice, as two clauses of a Lucene BooleanQuery would."""
    n = len(doc_tokens)
    avgdl = sum(len(tokens) for tokens in doc_tokens.values()) / n
    df = Counter(term for tokens in doc_tokens.values() for term in set(tokens))
    scores: dict[str, float] = {}
    for doc_id, tokens in doc_tokens.items():
        tf, dl, total = Counter(tokens), len(tokens), 0.0
        for term in query_tokens:
            if tf[term]:
                idf = math.log(1.0 + (n - df[term] + 0.5) / (df[term] + 0.5))
                total += idf * tf[term] / (tf[term] + K1 * (1.0 - B + B * dl / avgdl))
        scores[doc_id] = total
    return scores


def ranked(scores: dict[str, float]) -> list[str]:
    """Score descending, then doc_id ascending (Python compares str by code point)."""
    return sorted(scores, key=lambda doc_id: (-scores[doc_id], doc_id))


def lexical_reference(fixture: CorpusFixture, text: str) -> dict[str, float]:
    tokenizer = Tokenizer(LexicalConfig())
    docs = {doc_id: tokenizer.tokens(t) for doc_id, t in lexical_texts(fixture).items()}
    return independent_bm25(docs, tokenizer.tokens(text))


def dense_reference(fixture: CorpusFixture, text: str) -> dict[str, float]:
    """float64 cosine between the fixture's query vector and every document vector."""
    position = [q["text"] for q in fixture.data["queries"]].index(text)
    query = fixture.query_vectors[position].astype(np.float64)
    docs = fixture.document_vectors.astype(np.float64)
    cosine = docs @ query / (np.linalg.norm(docs, axis=1) * np.linalg.norm(query))
    return {d["doc_id"]: float(c) for d, c in zip(fixture.data["documents"], cosine, strict=True)}


def rrf_reference(lexical: list[str], dense: list[str], depth: int) -> dict[str, tuple[int | None, int | None, float]]:
    """doc_id -> (lexical rank, dense rank, fused) over the top `depth` of each lane; the lexical
    lane's term is added first, a missing lane contributes nothing."""
    lex_rank = {doc_id: r for r, doc_id in enumerate(lexical[:depth], start=1)}
    dense_rank = {doc_id: r for r, doc_id in enumerate(dense[:depth], start=1)}
    fused: dict[str, tuple[int | None, int | None, float]] = {}
    for doc_id in lex_rank.keys() | dense_rank.keys():
        rl, rd = lex_rank.get(doc_id), dense_rank.get(doc_id)
        total = 0.0
        if rl is not None:
            total += 1.0 / (RRF_K + rl)
        if rd is not None:
            total += 1.0 / (RRF_K + rd)
        fused[doc_id] = (rl, rd, total)
    return fused


def query_texts(fixture: CorpusFixture) -> list[str]:
    return [q["text"] for q in fixture.data["queries"]]


def doc_ids(outcome: SearchOutcome) -> list[str]:
    return [hit.doc_id for hit in outcome.hits]


# --------------------------------------------------------------------------------------------------
# Stores: the tiny corpus, and a variant with a twin of d01 and a query with no indexable term


def _build(tmp_path_factory: pytest.TempPathFactory, fixture: CorpusFixture, namespace: str,
           order: list[int] | None = None) -> Store:
    store, changed = build_store(tmp_path_factory.mktemp("retrieval-store") / "store", fixture, namespace,
                                 LexicalConfig(), insertion_order=order)
    assert changed
    return store


@pytest.fixture(scope="module")
def tiny_store(tmp_path_factory: pytest.TempPathFactory, tiny_corpus: CorpusFixture, tiny: Contract) -> Store:
    return _build(tmp_path_factory, tiny_corpus, tiny.namespace)


@pytest.fixture(scope="module")
def searcher(tiny_store: Store, tiny_corpus: CorpusFixture) -> Searcher:
    return Searcher(tiny_store, tiny_corpus, SearchConfig())


def twin_members() -> dict[str, bytes]:
    members = tiny_members()
    d01 = json.loads(members[CORPUS].decode("utf-8").splitlines()[0])
    assert d01["_id"] == ORIGINAL
    twin = {"_id": TWIN, "title": d01["title"], "text": d01["text"], "metadata": {}}
    members[CORPUS] += (json.dumps(twin, ensure_ascii=False) + "\n").encode("utf-8")
    members[QUERIES] += (json.dumps({"_id": "q7", "text": NO_TERM_QUERY, "metadata": {}}) + "\n").encode("utf-8")
    members[QRELS] += b"q7\td01\t1\r\n"
    return members


@pytest.fixture(scope="module")
def twin_corpus(tmp_path_factory: pytest.TempPathFactory, tiny: Contract, tiny_corpus: CorpusFixture,
                local_embedder: LocalEmbedder) -> CorpusFixture:
    """Eleven documents, d11 a byte-for-byte twin of d01 in title and text; pinned to its own digests."""
    root = tmp_path_factory.mktemp("twin-corpus")
    # Speed only: start from the tiny build's embedding cache (conftest's layout), so that just the new
    # query is embedded; d11's prompt equals d01's. Without it everything is embedded afresh.
    seed = tiny_corpus.path.parent / "work" / "embedding-cache"
    if seed.is_dir():
        shutil.copytree(seed, root / "work" / "embedding-cache")
    members = twin_members()
    contract = dataclasses.replace(
        tiny, documents=11, test_queries=7, test_qrel_pairs=9,
        pinned_payload_sha256={name: sha256_prefixed(members[name]) for name in (CORPUS, QUERIES, QRELS)})
    overrides = {name: members[name] for name in (CORPUS, QUERIES, QRELS)}
    report = build_fixture(contract, out=root / "twin.json", work_dir=root / "work", embedder=local_embedder,
                           archive=tiny_archive(root / "twin.zip", overrides), progress=False)
    fixture = load_fixture(report.fixture)
    assert fixture.data["source"]["payload_pinned"] is True
    ids = [d["doc_id"] for d in fixture.data["documents"]]
    assert np.array_equal(fixture.document_vectors[ids.index(ORIGINAL)], fixture.document_vectors[ids.index(TWIN)])
    return fixture


@pytest.fixture(scope="module")
def twin_stores(tmp_path_factory: pytest.TempPathFactory, twin_corpus: CorpusFixture,
                tiny: Contract) -> dict[str, Store]:
    forward = _build(tmp_path_factory, twin_corpus, tiny.namespace)
    reverse = _build(tmp_path_factory, twin_corpus, tiny.namespace, list(reversed(range(11))))
    # the reversal took effect: the twin is stored before the original, so storage order would pick d11
    assert forward.doc_ids.index(ORIGINAL) < forward.doc_ids.index(TWIN)
    assert reverse.doc_ids.index(TWIN) < reverse.doc_ids.index(ORIGINAL)
    return {"forward": forward, "reverse": reverse}


# --------------------------------------------------------------------------------------------------
# 1. Tokenizer


@pytest.mark.parametrize(("text", "expected"), [
    ("Aspirin inhibits platelet aggregation.", ["aspirin", "inhibit", "platelet", "aggreg"]),
    ("The effect of a drug on the LIVER", ["effect", "drug", "liver"]),  # stopwords out, lowercase
    ("Vitamin D and type 2 diabetes", ["vitamin", "type", "diabet"]),  # one-letter tokens dropped
    ("𝛽-catenin in Müller cells, naïve Ärzte", ["catenin", "müller", "cell", "naïv", "ärzte"]),  # lone 𝛽: 1 letter
    ("𝛼𝛽-crystallin", ["𝛼𝛽", "crystallin"]),  # two non-BMP letters make a token
    ("東京 αβγ données ☕", ["東京", "αβγ", "donné"]),  # non-ASCII word characters kept, ☕ is no word
    ("HMG-CoA reductase, LDL-lowering", ["hmg", "coa", "reductas", "ldl", "lower"]),
    ("the of and", []),
    ("???", []),
])
def test_tokenizer_known_examples(text: str, expected: list[str]) -> None:
    assert Tokenizer(LexicalConfig()).tokens(text) == expected


def test_tokenizer_record_lists_exactly_the_words_it_drops() -> None:
    tokenizer = Tokenizer(LexicalConfig())
    record = tokenizer.record()
    stopwords = record["stopwords"]
    assert stopwords == sorted(set(stopwords))
    assert {"the", "of", "and", "in", "is", "with", "a"} <= set(stopwords)
    assert set(stopwords) == set(STOPWORDS_EN)
    assert record["stopwords_sha256"] == sha256_prefixed(
        json.dumps(stopwords, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
    assert record["stemmer"] == {"library": "PyStemmer", "algorithm": "english",
                                 "version": metadata.version("PyStemmer")}
    assert record["token_pattern"] == r"(?u)\b\w\w+\b" and record["lowercase"] is True
    for word in stopwords:  # each listed word is dropped, in any case
        assert tokenizer.tokens(f"{word} {word.upper()}") == []
    for word in ("effect", "drug", "cells", "without", "between"):  # ordinary words are not
        assert word not in stopwords and tokenizer.tokens(word) != []


def test_check_matches_refuses_another_tokenizer() -> None:
    tokenizer = Tokenizer(LexicalConfig())
    tokenizer.check_matches(tokenizer.record())  # its own record passes
    other_stopwords = {**tokenizer.record(), "stopwords_sha256": sha256_prefixed(b'["the"]')}
    with pytest.raises(HarnessError, match="stopwords_sha256"):
        tokenizer.check_matches(other_stopwords)
    other_stemmer = tokenizer.record()
    other_stemmer["stemmer"] = {**other_stemmer["stemmer"], "version": "0.0.1"}
    with pytest.raises(HarnessError, match="stemmer"):
        tokenizer.check_matches(other_stemmer)


def test_lexical_index_load_refuses_a_record_with_other_stopwords(tmp_path: Path) -> None:
    directory = tmp_path / "lexical"
    LexicalIndex.build(["aspirin inhibits platelets", "statins lower cholesterol"], LexicalConfig()).save(directory)
    assert LexicalIndex.load(directory, LexicalConfig()).score("aspirin").query_tokens == ["aspirin"]
    record = json.loads((directory / TOKENIZER_RECORD).read_text(encoding="utf-8"))
    record["stopwords"] = [*record["stopwords"], "aspirin"]
    record["stopwords_sha256"] = sha256_prefixed(json.dumps(sorted(record["stopwords"])).encode())
    (directory / TOKENIZER_RECORD).write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(HarnessError, match="stopwords_sha256"):
        LexicalIndex.load(directory, LexicalConfig())


# --------------------------------------------------------------------------------------------------
# 2. fts_only against an independent BM25

EXTRA_LEXICAL_QUERIES = [
    "aspirin bleeding risk in dengue",
    "colon cancer and the gut microbiome",
    "sleep caffeine alertness",
    "LDL cholesterol myocardial infarction statins",
]


def test_fts_only_matches_an_independent_lucene_bm25(searcher: Searcher, tiny_corpus: CorpusFixture) -> None:
    queries = [*query_texts(tiny_corpus), *EXTRA_LEXICAL_QUERIES]
    assert len(queries) == 10
    for text in queries:
        reference = lexical_reference(tiny_corpus, text)
        positive = {doc_id: s for doc_id, s in reference.items() if s > 0}
        expected = ranked(positive)[:10]
        outcome = searcher.search("fts_only", text)
        assert doc_ids(outcome) == expected, text
        assert expected, f"{text!r} should match something"
        for rank, hit in enumerate(outcome.hits, start=1):
            assert hit.score == pytest.approx(reference[hit.doc_id], rel=1e-5), (text, hit.doc_id)
            assert hit.score > 0
            assert hit.lanes == {"lexical": {"rank": rank, "score": hit.score}}
        evidence = outcome.evidence["lexical"].evidence
        assert evidence["candidates"] == len(positive)


HAND_TEXTS = ["aspirin aspirin platelets study", "aspirin statins study", "the of and", "",
              "Aspirin cells cells cells platelet study", "Müller cells study"]


@pytest.mark.parametrize("query", ["aspirin", "aspirin aspirin", "cells platelet", "müller study", "Study"])
def test_lexical_index_on_a_hand_corpus(query: str) -> None:
    """Edge cases the tiny corpus lacks: an all-stopword and an empty document (length 0), a term in
    every non-empty document, a repeated term in document and query."""
    tokenizer = Tokenizer(LexicalConfig())
    reference = independent_bm25({str(i): tokenizer.tokens(t) for i, t in enumerate(HAND_TEXTS)},
                                 tokenizer.tokens(query))
    scored = LexicalIndex.build(HAND_TEXTS, LexicalConfig()).score(query)
    assert scored.scores is not None and scored.query_tokens == tokenizer.tokens(query)
    assert scored.scores.tolist() == pytest.approx([reference[str(i)] for i in range(len(HAND_TEXTS))], rel=1e-5)


def test_fts_only_never_pads_with_zero_score_documents(searcher: Searcher, tiny_corpus: CorpusFixture) -> None:
    text = "aspirin"  # only d01 and d08 mention it; the other eight score 0
    reference = lexical_reference(tiny_corpus, text)
    assert sorted(d for d, s in reference.items() if s > 0) == ["d01", "d08"]
    outcome = searcher.search("fts_only", text)
    assert sorted(doc_ids(outcome)) == ["d01", "d08"]
    assert all(hit.score > 0 for hit in outcome.hits)


def test_fts_only_fact_ids_follow_the_mapping(searcher: Searcher, tiny_store: Store) -> None:
    mapping = json.loads(tiny_store.mapping_path.read_text(encoding="utf-8"))["doc_to_fact"]
    for hit in searcher.search("fts_only", "platelet aspirin").hits:
        assert hit.fact_id == mapping[hit.doc_id]


# --------------------------------------------------------------------------------------------------
# 3. A query with no indexable term


@pytest.mark.parametrize("text", ["the of and", "???", "a I", "zzyzx qwertyuiop", NO_TERM_QUERY])
def test_no_indexable_term_gives_no_lexical_hits(searcher: Searcher, text: str) -> None:
    outcome = searcher.search("fts_only", text)
    assert outcome.hits == []
    assert outcome.evidence["lexical"].order.size == 0
    assert outcome.evidence["lexical"].scores is None
    receipt = searcher.receipt(outcome, text, "r-empty")
    assert receipt["result_count"] == 0
    assert receipt["lanes"]["lexical"] == {"query_tokens": [], "candidates": 0, "depth": 0}


def test_hybrid_with_no_indexable_term_is_the_dense_lane_alone(twin_stores: dict[str, Store],
                                                                twin_corpus: CorpusFixture) -> None:
    searcher = Searcher(twin_stores["forward"], twin_corpus, SearchConfig())
    hybrid = searcher.search("hybrid", NO_TERM_QUERY)
    dense = searcher.search("vector_only", NO_TERM_QUERY)
    assert hybrid.evidence["lexical"].order.size == 0
    assert doc_ids(hybrid) == doc_ids(dense)
    assert doc_ids(hybrid) == ranked(dense_reference(twin_corpus, NO_TERM_QUERY))[:10]
    for rank, hit in enumerate(hybrid.hits, start=1):
        assert hit.lanes["lexical"] == {"rank": None, "score": None}
        assert hit.lanes["dense"]["rank"] == rank
        assert hit.lanes["fusion"]["fused_score"] == hit.score == 1.0 / (RRF_K + rank)
    receipt = searcher.receipt(hybrid, NO_TERM_QUERY, "r-hybrid-empty")
    assert receipt["lanes"]["lexical"]["depth"] == 0 and receipt["lanes"]["dense"]["depth"] == 11


# --------------------------------------------------------------------------------------------------
# 4. vector_only against float64 numpy


def test_vector_only_matches_float64_cosine(searcher: Searcher, tiny_corpus: CorpusFixture) -> None:
    n = len(tiny_corpus.data["documents"])
    for text in query_texts(tiny_corpus):
        reference = dense_reference(tiny_corpus, text)
        values = sorted(reference.values())
        assert min(b - a for a, b in itertools.pairwise(values)) > 1e-5  # tiny has no (near) ties
        outcome = searcher.search("vector_only", text)
        assert doc_ids(outcome) == ranked(reference)[:10]
        for rank, hit in enumerate(outcome.hits, start=1):
            assert hit.score == pytest.approx(reference[hit.doc_id], rel=1e-5, abs=1e-7)
            assert hit.lanes == {"dense": {"rank": rank, "score": hit.score}}
        lane = searcher.receipt(outcome, text, "r-dense")["lanes"]["dense"]
        assert lane["exact"] is True
        assert lane["candidates_scored"] == n == 10


# --------------------------------------------------------------------------------------------------
# 5. Hybrid: reciprocal rank fusion


def test_rrf_score_on_hand_values() -> None:
    assert rrf_score({"lexical": 1, "dense": 1}, 60) == 2 / 61
    assert rrf_score({"lexical": 1, "dense": 2}, 60) == 1 / 61 + 1 / 62
    assert rrf_score({"dense": 2, "lexical": 1}, 60) == (0.0 + 1 / 61) + 1 / 62  # lexical term added first
    assert rrf_score({"lexical": None, "dense": 3}, 60) == 1 / 63
    assert rrf_score({"lexical": 4}, 60) == 1 / 64
    assert rrf_score({"lexical": None, "dense": None}, 60) == 0.0
    assert rrf_score({}, 60) == 0.0
    assert rrf_score({"lexical": 1, "dense": 1}, 1) == 1.0
    assert rrf_score({"sparse": 1}, 60) == 0.0  # no such lane


@pytest.mark.parametrize(("top", "depth"), [(10, 100), (10, 10), (3, 5), (1, 1)])
def test_hybrid_equals_independent_rrf(tiny_store: Store, tiny_corpus: CorpusFixture, top: int, depth: int) -> None:
    searcher = Searcher(tiny_store, tiny_corpus, SearchConfig(top_k=top, hybrid_candidate_depth=depth))
    for text in query_texts(tiny_corpus):
        lexical_scores = lexical_reference(tiny_corpus, text)
        dense_scores = dense_reference(tiny_corpus, text)
        lexical = ranked({d: s for d, s in lexical_scores.items() if s > 0})
        fused = rrf_reference(lexical, ranked(dense_scores), depth)
        expected = sorted(fused, key=lambda d: (-fused[d][2], d))[:top]
        outcome = searcher.search("hybrid", text)
        assert doc_ids(outcome) == expected, text
        for hit in outcome.hits:
            rl, rd, total = fused[hit.doc_id]
            assert hit.lanes["lexical"]["rank"] == rl and hit.lanes["dense"]["rank"] == rd
            assert hit.lanes["fusion"] == {"method": "rrf", "k": RRF_K, "fused_score": total}
            assert hit.score == total  # exact: the formula is fixed
            for lane, rank, scores in (("lexical", rl, lexical_scores), ("dense", rd, dense_scores)):
                if rank is None:
                    assert hit.lanes[lane]["score"] is None
                else:
                    assert hit.lanes[lane]["score"] == pytest.approx(scores[hit.doc_id], rel=1e-5, abs=1e-7)


# --------------------------------------------------------------------------------------------------
# 6. Ties


def _assert_twin_adjacent(ids: list[str], context: str) -> None:
    """Wherever d01 is ranked (and not last), d11 comes right after; d11 never comes without d01 just before."""
    if ORIGINAL in ids and ids.index(ORIGINAL) < len(ids) - 1:
        assert ids[ids.index(ORIGINAL) + 1] == TWIN, context
    if TWIN in ids:
        assert ids.index(TWIN) > 0 and ids[ids.index(TWIN) - 1] == ORIGINAL, context


@pytest.mark.parametrize("mode", ["fts_only", "vector_only", "hybrid"])
def test_twin_documents_rank_by_doc_id(twin_stores: dict[str, Store], twin_corpus: CorpusFixture,
                                       mode: str) -> None:
    results: dict[str, dict[str, list[str]]] = {}
    for name, store in twin_stores.items():
        searcher = Searcher(store, twin_corpus, SearchConfig())
        results[name] = {}
        for text in query_texts(twin_corpus):
            outcome = searcher.search(mode, text)
            ids = results[name][text] = doc_ids(outcome)
            if mode != "hybrid":
                _assert_twin_adjacent(ids, f"{name} {mode} {text!r}")
                continue
            # In RRF the twins take adjacent ranks r, r+1 in each lane, so d01 always fuses higher;
            # a third document can fuse between them, so only their order is guaranteed here.
            if TWIN in ids:
                assert ORIGINAL in ids and ids.index(ORIGINAL) < ids.index(TWIN), f"{name} {text!r}"
            by_id = {hit.doc_id: hit for hit in outcome.hits}
            if ORIGINAL in by_id and TWIN in by_id:
                for lane in ("lexical", "dense"):
                    a, b = by_id[ORIGINAL].lanes[lane], by_id[TWIN].lanes[lane]
                    assert a["score"] == b["score"], f"{name} {lane} {text!r}"
                    assert (a["rank"] is None and b["rank"] is None) or a["rank"] + 1 == b["rank"]
    assert results["forward"] == results["reverse"]  # storage order never decides a tie


@pytest.mark.parametrize("lane", ["lexical", "dense"])
def test_twin_lane_scores_are_exactly_equal(twin_stores: dict[str, Store], twin_corpus: CorpusFixture,
                                            lane: str) -> None:
    for store in twin_stores.values():
        at = {doc_id: i for i, doc_id in enumerate(store.doc_ids)}
        searcher = Searcher(store, twin_corpus, SearchConfig())
        for text in query_texts(twin_corpus):
            if lane == "lexical":
                scores = store.lexical.score(text).scores
                if scores is None:
                    continue
            else:
                scores = store.dense.score(searcher.query_vector(text))
            assert scores[at[ORIGINAL]] == scores[at[TWIN]], text


def test_dense_index_scores_identical_rows_identically() -> None:
    """Direct evidence for the dense tie bug, independent of the model: identical rows, one query."""
    rng = np.random.default_rng(7)
    for dims in (384, 385, 768):
        row = rng.standard_normal(dims).astype(np.float32)
        query = rng.standard_normal(dims).astype(np.float32)
        row /= np.linalg.norm(row)
        query /= np.linalg.norm(query)
        for n in (2, 3, 5, 11, 33):
            scores = DenseIndex(np.tile(row, (n, 1))).score(query)
            assert len(set(scores.tolist())) == 1, (dims, n, sorted(set(scores.tolist())))


def test_twins_at_the_top_rank_d01_first(twin_stores: dict[str, Store], twin_corpus: CorpusFixture) -> None:
    text = "Aspirin inhibits platelet aggregation."
    lexical = ranked({d: s for d, s in lexical_reference(twin_corpus, text).items() if s > 0})
    assert lexical[:2] == [ORIGINAL, TWIN]
    assert ranked(dense_reference(twin_corpus, text))[:2] == [ORIGINAL, TWIN]
    for name, store in twin_stores.items():
        full = Searcher(store, twin_corpus, SearchConfig())
        one = Searcher(store, twin_corpus, SearchConfig(top_k=1, hybrid_candidate_depth=1))
        for mode in MODES:
            assert doc_ids(full.search(mode, text))[:2] == [ORIGINAL, TWIN], (name, mode)
            assert doc_ids(one.search(mode, text)) == [ORIGINAL], (name, mode)


def _brute_force(scores: NDArray[np.float32], ties: NDArray[np.int64], k: int,
                 candidates: NDArray[np.intp] | None) -> list[int]:
    values, tie = scores.tolist(), ties.tolist()
    pool = range(len(values)) if candidates is None else candidates.tolist()
    return sorted(pool, key=lambda i: (-values[i], tie[i]))[:k]


def test_top_k_equals_a_brute_force_sort() -> None:
    rng = np.random.default_rng(20240531)
    selected = 0
    for trial in range(160):
        n = int(rng.integers(16_001, 20_001)) if trial % 4 == 0 else int(np.exp(rng.uniform(np.log(5), np.log(20_000))))
        distinct = max(1, n // int(rng.integers(2, 200)))  # many duplicated values
        scores = (rng.integers(0, distinct, n) * rng.choice([1.0, -0.5, 0.125])).astype(np.float32)
        if trial % 5 == 2:
            scores = rng.permutation(n).astype(np.float32)  # all distinct
        ties = rng.permutation(n).astype(np.int64)
        k = int(rng.integers(1, 40)) if trial % 2 else int(rng.integers(1, n + 5))
        candidates: NDArray[np.intp] | None = None
        if trial % 3 == 1:
            candidates = rng.choice(n, size=int(rng.integers(0, n + 1)), replace=False).astype(np.intp)
        size = n if candidates is None else candidates.size
        selected += size > k
        got = top_k(scores, ties, k, candidates)
        assert got.tolist() == _brute_force(scores, ties, k, candidates), (trial, n, k)
    assert selected > 80  # most trials select from more candidates than k


@pytest.mark.parametrize("n", [17, 20_000])
def test_top_k_all_equal_and_adversarial_layouts(n: int) -> None:
    rng = np.random.default_rng(n)
    ties = rng.permutation(n).astype(np.int64)
    for k in (1, 3, 17):
        flat = np.zeros(n, dtype=np.float32)
        assert top_k(flat, ties, k).tolist() == _brute_force(flat, ties, k, None)
        # the best values sit exactly between the positions of a strided sample
        spiky = np.zeros(n, dtype=np.float32)
        spiky[1::max(2, n // (8 * k))] = 1.0
        spiky[3] = spiky[n - 2] = 2.0
        assert top_k(spiky, ties, k).tolist() == _brute_force(spiky, ties, k, None)
        # the best values sit exactly on a strided sample's positions, in descending order
        on_sample = np.zeros(n, dtype=np.float32)
        on_sample[:: max(1, n // (8 * k))] = np.arange(on_sample[:: max(1, n // (8 * k))].size, 0, -1)
        assert top_k(on_sample, ties, k).tolist() == _brute_force(on_sample, ties, k, None)
        signed = np.where(np.arange(n) % 2, np.float32(-0.0), np.float32(0.0)).astype(np.float32)
        assert top_k(signed, ties, k).tolist() == _brute_force(signed, ties, k, None)


def test_tie_ranks_follow_code_points() -> None:
    assert tie_ranks(["d2", "d10", "d1"]).tolist() == [2, 1, 0]  # string order, not numeric
    # U+005A < U+0061 < U+00C9 < U+FF5A < U+1D6FD; UTF-16 code units would put U+1D6FD before U+FF5A
    ids = ["\U0001d6fd", "\uff5a", "\u00c9", "a", "Z"]
    assert tie_ranks(ids).tolist() == [4, 3, 2, 1, 0]


# --------------------------------------------------------------------------------------------------
# 7. Unknown query text


@pytest.mark.parametrize("text", [ALIEN_QUERY, "caffeine alertness", "Aspirin inhibits platelet aggregation. "])
def test_unknown_query_text_is_refused_for_vectors(searcher: Searcher, text: str) -> None:
    for mode in ("vector_only", "hybrid"):
        with pytest.raises(UnknownQueryError, match="never embeds query text") as caught:
            searcher.search(mode, text)
        assert repr(text[:80]) in str(caught.value)
    searcher.search("fts_only", text)  # the lexical lane needs no vector


def test_fts_only_serves_text_outside_the_fixture(searcher: Searcher, tiny_corpus: CorpusFixture) -> None:
    assert "caffeine alertness" not in query_texts(tiny_corpus)
    assert doc_ids(searcher.search("fts_only", "caffeine alertness")) == ["d10"]


# --------------------------------------------------------------------------------------------------
# 8. SearchConfig

OFF_BASELINE: list[tuple[str, Any, str]] = [
    ("sparse_weight", 0.5, "SPLADE"),
    ("dense_derived_sparse", True, "derived from dense"),
    ("late_interaction_weight", 0.25, "late interaction"),
    ("candidate_dims", 128, "Matryoshka"),
    ("recency", True, "timestamps"),
    ("derived_vector_backend", True, "exact over stored vectors"),
]


@pytest.mark.parametrize(("name", "value", "reason"), OFF_BASELINE)
def test_frozen_switch_off_baseline_is_refused(name: str, value: Any, reason: str) -> None:
    with pytest.raises(ConfigError) as caught:
        SearchConfig(**{name: value})
    message = str(caught.value)
    assert f"{name}={value!r}" in message and reason in message and "unavailable" in message


def test_frozen_switches_at_baseline_are_accepted() -> None:
    config = SearchConfig(sparse_weight=0.0, dense_derived_sparse=False, late_interaction_weight=0.0,
                          candidate_dims=None, recency=False, derived_vector_backend=False)
    assert config == SearchConfig()
    capabilities = unavailable_capabilities()
    assert set(capabilities) == {"sparse", "dense_derived_sparse", "late_interaction", "matryoshka", "recency",
                                 "derived_vector_backend", "graph"}
    assert all(c["available"] is False and c["reason"] for c in capabilities.values())
    assert {c["config_field"] for c in capabilities.values()} == {name for name, _, _ in OFF_BASELINE} | {None}


@pytest.mark.parametrize(("kwargs", "named"), [
    ({"top_k": 0}, "top_k (0)"), ({"top_k": -3}, "top_k (-3)"), ({"rrf_k": 0}, "rrf_k (0)"),
    ({"top_k": 10, "hybrid_candidate_depth": 9}, "hybrid_candidate_depth (9) >= top_k"),
    ({"top_k": 1, "hybrid_candidate_depth": 0}, "hybrid_candidate_depth (0) >= top_k"),
])
def test_bad_sizes_are_refused(kwargs: dict[str, int], named: str) -> None:
    with pytest.raises(ConfigError) as caught:
        SearchConfig(**kwargs)  # type: ignore[arg-type]
    assert named in str(caught.value)
    SearchConfig(top_k=1, hybrid_candidate_depth=1, rrf_k=1)  # the smallest valid sizes


def test_config_digest_is_stable_and_tracks_every_field() -> None:
    config = SearchConfig()
    data = config.to_dict()
    assert data["top_k"] == 10 and data["rrf_k"] == 60 and data["hybrid_candidate_depth"] == 100
    assert data["lexical"] == {"method": "lucene", "k1": 1.5, "b": 0.75, "lowercase": True,
                               "token_pattern": r"(?u)\b\w\w+\b", "stopwords": "bm25s english list",
                               "stemmer": "snowball english (PyStemmer)", "text": LexicalConfig().text}
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    assert config.sha256() == SearchConfig().sha256() == sha256_prefixed(canonical)
    other_process = subprocess.run(
        [sys.executable, "-c",
         "from harness.systems.builtin.config.search_config import SearchConfig; print(SearchConfig().sha256())"],
        capture_output=True, text=True, check=True, cwd=Path(__file__).parent.parent,
        env={"PYTHONHASHSEED": "12345", "PATH": ""})
    assert other_process.stdout.strip() == config.sha256()
    changed = [SearchConfig(rrf_k=61), SearchConfig(top_k=9), SearchConfig(hybrid_candidate_depth=50),
               SearchConfig(lexical=LexicalConfig(k1=1.2))]
    digests = {config.sha256(), *(c.sha256() for c in changed)}
    assert len(digests) == 1 + len(changed)


# --------------------------------------------------------------------------------------------------
# 9. Search receipt


def _canonical_results(hits: list[Hit]) -> str:
    rows = [[hit.doc_id, hit.fact_id, hit.score] for hit in hits]
    return sha256_prefixed(json.dumps(rows, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


@pytest.mark.parametrize("mode", MODES)
def test_search_receipt(searcher: Searcher, tiny_store: Store, tiny_corpus: CorpusFixture, mode: str) -> None:
    position = 2
    text = query_texts(tiny_corpus)[position]  # q3, with its non-BMP 𝛽
    outcome = searcher.search(mode, text)
    receipt = searcher.receipt(outcome, text, "req-0003")
    json.dumps(receipt, allow_nan=False)  # serializable as is
    assert receipt["request_id"] == "req-0003"
    assert receipt["mode"] == mode
    assert receipt["query_sha256"] == sha256_prefixed(text.encode("utf-8"))
    assert receipt["config_sha256"] == SearchConfig().sha256()
    assert receipt["store_sha256"] == tiny_store.manifest["store_sha256"] == store_digest(tiny_store.directory)
    assert receipt["namespace"] == "tiny-test" and receipt["top_k"] == 10
    assert receipt["result_count"] == len(outcome.hits) > 0
    assert receipt["results_sha256"] == _canonical_results(outcome.hits)
    lanes = receipt["lanes"]
    assert set(lanes) == {"fts_only": {"lexical"}, "vector_only": {"dense"},
                          "hybrid": {"lexical", "dense", "fusion"}}[mode]
    if "dense" in lanes:
        vector = tiny_corpus.query_vectors[position].astype("<f4")
        assert lanes["dense"]["exact"] is True
        assert lanes["dense"]["candidates_scored"] == len(tiny_corpus.data["documents"])
        assert lanes["dense"]["query_vector_sha256"] == sha256_prefixed(vector.tobytes())
    if "lexical" in lanes:
        assert lanes["lexical"]["query_tokens"] == ["catenin", "activ", "wnt", "target", "gene", "colorect", "tumour"]
    if mode == "hybrid":
        assert lanes["fusion"] == {"method": "rrf", "k": 60, "candidate_depth": 100, "lane_order": ["lexical", "dense"]}
    # the same search gives the same receipt
    assert searcher.receipt(searcher.search(mode, text), text, "req-0003") == receipt


def test_results_digest_changes_when_a_hit_changes(searcher: Searcher, tiny_corpus: CorpusFixture) -> None:
    text = query_texts(tiny_corpus)[0]
    outcome = searcher.search("hybrid", text)
    digest = searcher.receipt(outcome, text, "r")["results_sha256"]
    hits = outcome.hits
    first = hits[0]
    variants = [
        [dataclasses.replace(first, score=first.score + 1e-12), *hits[1:]],
        [dataclasses.replace(first, doc_id="d99"), *hits[1:]],
        [dataclasses.replace(first, fact_id=first.fact_id + 100), *hits[1:]],
        [hits[1], hits[0], *hits[2:]],
        hits[:-1],
    ]
    seen = {digest}
    for changed in variants:
        receipt = searcher.receipt(dataclasses.replace(outcome, hits=changed), text, "r")
        seen.add(receipt["results_sha256"])
    assert len(seen) == 1 + len(variants)
