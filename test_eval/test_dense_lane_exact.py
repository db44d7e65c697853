"""The built-in system's dense lane writes exactly the float32 scores a plain numpy matrix-vector product gives (the
arithmetic the validator replays bit for bit) and ranks by them exactly: score descending, then doc_id ascending,
every tie at the cut considered. Checked bit for bit at 384 and 768 dimensions, with duplicated vectors and exactly
tied scores, at the top 10 and deepened to 100; and the dense benchmark runs on the tiny fixture."""

import struct
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from benchmarks import dense_speed
from benchmarks.scale.synthetic import NAMESPACE, generate
from harness.fixture.corpus_fixture import CorpusFixture
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.store.store import build_store
from harness.systems.builtin.system import BuiltinSystem
from harness.systems.protocol import Hit

DOCUMENTS = 1_500


def _bits(value: float) -> bytes:
    return struct.pack("<d", value)


def _system(directory: Path, fixture: CorpusFixture) -> BuiltinSystem:
    store, _ = build_store(directory, fixture, NAMESPACE, SearchConfig().lexical)
    return BuiltinSystem(store, SearchConfig())


def _synthetic(dims: int) -> tuple[CorpusFixture, NDArray[np.float32]]:
    """A synthetic corpus at `dims` dimensions whose vectors repeat: rows 1..20 copy rows 100..119, so their scores
    tie exactly, and the queries include document vectors themselves (their own score is the largest)."""
    corpus = generate(DOCUMENTS, seed=7, queries=24)
    fixture, _ = dense_speed.with_dimensions(corpus.fixture(Path("synthetic.json")), dims, seed=3)
    fixture.document_vectors[1:21] = fixture.document_vectors[100:120]
    queries = np.concatenate([fixture.query_vectors, fixture.document_vectors[[2, 101, 500]]])
    return fixture, np.ascontiguousarray(queries)


def _reference(documents: NDArray[np.float32], doc_ids: list[str], query: NDArray[np.float32],
               depth: int) -> list[tuple[str, bytes]]:
    """The straightforward reference: numpy's float32 product in the fixture's row order (identical vectors take the
    first one's score), sorted in Python by score descending, then doc_id by code point."""
    scores = (documents @ query).tolist()
    first: dict[bytes, float] = {}
    for row, vector in enumerate(documents):
        scores[row] = first.setdefault(vector.tobytes(), scores[row])
    ranked = sorted(range(len(doc_ids)), key=lambda row: (-scores[row], doc_ids[row]))[:depth]
    return [(doc_ids[row], _bits(scores[row])) for row in ranked]


def _found(hits: list[Hit]) -> list[tuple[str, bytes]]:
    return [(hit.doc_id, _bits(hit.score)) for hit in hits]


@pytest.mark.parametrize("dims", [384, 768])
def test_dense_scores_and_ranking_are_numpys_bit_for_bit(tmp_path: Path, dims: int) -> None:
    fixture, queries = _synthetic(dims)
    system = _system(tmp_path / "store", fixture)
    doc_ids = [document["doc_id"] for document in fixture.data["documents"]]
    assert system.store.doc_ids == doc_ids  # the store keeps the fixture's row order, so positions are the same
    assert system.store.dense.duplicate_rows == 20
    for query in queries:
        outcome = system.search("vector_only", "", query, 10)
        scores = outcome.evidence["dense"].scores
        assert scores.dtype == np.float32 and scores.tobytes() == (fixture.document_vectors @ query).tobytes()
        assert _found(outcome.hits) == _reference(fixture.document_vectors, doc_ids, query, 10)
        for rank, hit in enumerate(outcome.hits, start=1):
            assert hit.lanes == {"dense": {"rank": rank, "score": hit.score}}
            assert type(hit.score) is float and type(hit.fact_id) is int
        assert _found(system.deepen(outcome, 100)) == _reference(fixture.document_vectors, doc_ids, query, 100)


def test_tied_copies_rank_by_doc_id(tmp_path: Path) -> None:
    fixture, queries = _synthetic(384)
    system = _system(tmp_path / "store", fixture)
    top = system.search("vector_only", "", queries[-3], 2).hits  # document 2's vector, shared with document 101
    assert [hit.doc_id for hit in top] == ["101", "2"] and top[0].score == top[1].score  # code points, not storage


def test_tiny_fixture_scores_are_numpys_bit_for_bit(tmp_path: Path, tiny_corpus: CorpusFixture) -> None:
    store, _ = build_store(tmp_path / "store", tiny_corpus, tiny_corpus.data["contract"]["namespace"],
                           SearchConfig().lexical)
    system = BuiltinSystem(store, SearchConfig())
    doc_ids = list(tiny_corpus.doc_ids)
    for query in tiny_corpus.query_vectors:
        outcome = system.search("vector_only", "", query, 10)
        assert _found(outcome.hits) == _reference(tiny_corpus.document_vectors, doc_ids, query, 10)


@pytest.mark.extra("bench")
def test_dense_benchmark_prints_each_width(tiny_corpus: CorpusFixture, capsys: pytest.CaptureFixture[str]) -> None:
    own = tiny_corpus.document_vectors.shape[1]
    assert dense_speed.main(["--fixture", str(tiny_corpus.path), "--dims", str(own), "24", "--busy", "0",
                             "--rounds", "1"]) == 0
    printed = capsys.readouterr().out
    assert f"{own} dimensions (the fixture's vectors)" in printed
    assert "24 dimensions (seeded random unit vectors (seed 0))" in printed
    for arm in ("builtin, one BLAS thread", "builtin lane: score + top k", "builtin, library default",
                "faiss IndexFlatIP"):
        assert printed.count(f"\n{arm} ") == 2


def test_other_widths_are_seeded_unit_vectors(tiny_corpus: CorpusFixture) -> None:
    own = tiny_corpus.document_vectors.shape[1]
    assert dense_speed.with_dimensions(tiny_corpus, own, seed=0)[0] is tiny_corpus
    wide, _ = dense_speed.with_dimensions(tiny_corpus, 768, seed=0)
    again, _ = dense_speed.with_dimensions(tiny_corpus, 768, seed=0)
    assert wide.document_vectors.shape == (len(tiny_corpus.document_vectors), 768)
    assert wide.query_vectors.shape == (len(tiny_corpus.query_vectors), 768)
    assert wide.data["vectors"]["dimensions"] == 768 and tiny_corpus.data["vectors"]["dimensions"] == own
    assert wide.document_vectors.tobytes() == again.document_vectors.tobytes()
    assert np.allclose(np.linalg.norm(wide.document_vectors, axis=1), 1.0, atol=1e-6)
