"""The corpus fixture's typed records: documents, queries with their judgements and split, and vectors by id, aligned
with the fixture's rows; the Corpus a system is given. On the tiny corpus, then on the real SciFact fixture."""

from pathlib import Path

import numpy as np
import pytest

from fixtures.archives import tiny_archive, tiny_contract
from harness.corpus.split import select
from harness.embedding.embedders.local import LocalEmbedder
from harness.fixture.build import build_fixture
from harness.fixture.corpus_fixture import CorpusFixture, load_fixture
from harness.fixture.records import Document, Query
from harness.systems.plugin import Corpus


@pytest.fixture(scope="module")
def tiny_fixture(tmp_path_factory: pytest.TempPathFactory, local_embedder: LocalEmbedder) -> CorpusFixture:
    root = tmp_path_factory.mktemp("records")
    report = build_fixture(tiny_contract(), out=root / "tiny.json", work_dir=root / "work", embedder=local_embedder,
                           archive=tiny_archive(root / "tiny.zip"), progress=False)
    return load_fixture(report.fixture)


@pytest.mark.real_model
def test_documents_and_queries_are_records_in_fixture_order(tiny_fixture: CorpusFixture) -> None:
    fixture = tiny_fixture
    assert len(fixture.documents) == 10 and len(fixture.queries) == 6
    first = fixture.data["documents"][0]
    assert fixture.documents[0] == Document("d01", "Aspirin and platelet aggregation", first["text"])
    assert fixture.document("d01") is fixture.documents[0]
    assert fixture.doc_ids == tuple(d["doc_id"] for d in fixture.data["documents"])
    assert fixture.query_ids == tuple(q["query_id"] for q in fixture.data["queries"])
    q1 = fixture.query("q1")
    assert (q1.query_id, q1.text, dict(q1.relevant)) == ("q1", "Aspirin inhibits platelet aggregation.",
                                                          {"d01": 1, "d08": 1})
    with pytest.raises(TypeError):
        q1.relevant["d02"] = 1  # type: ignore[index]
    assert fixture.data["queries"][0]["qrels"] == {"d01": 1, "d08": 1}  # the raw JSON is still there, unchanged


@pytest.mark.real_model
def test_each_query_carries_the_evaluations_split(tiny_fixture: CorpusFixture) -> None:
    fixture = tiny_fixture
    calibration = select(fixture.query_ids, "calibration", 2)
    assert [q.query_id for q in fixture.split("calibration")] == calibration
    assert [q.query_id for q in fixture.split("heldout")] == select(fixture.query_ids, "heldout", 2)
    assert [q.query_id for q in fixture.split("all")] == select(fixture.query_ids, "all", 2)
    assert {q.query_id: q.split for q in fixture.queries} == {
        query_id: "calibration" if query_id in calibration else "heldout" for query_id in fixture.query_ids}
    with pytest.raises(ValueError, match="no split 'test': choose one of calibration, heldout, all"):
        fixture.split("test")


@pytest.mark.real_model
def test_vectors_by_id_are_the_rows_of_the_fixture(tiny_fixture: CorpusFixture) -> None:
    fixture = tiny_fixture
    for row, doc_id in enumerate(fixture.doc_ids):
        assert np.array_equal(fixture.document_vector(doc_id), fixture.document_vectors[row])
    for row, query_id in enumerate(fixture.query_ids):
        assert np.array_equal(fixture.query_vector(query_id), fixture.query_vectors[row])
    with pytest.raises(KeyError, match=r"has no document 'q1': pass one of its doc_ids"):
        fixture.document_vector("q1")
    with pytest.raises(KeyError, match=r"has no query 'd01': pass one of its query_ids"):
        fixture.query("d01")


@pytest.mark.real_model
def test_the_corpus_is_what_a_system_is_given(tiny_fixture: CorpusFixture) -> None:
    corpus = tiny_fixture.corpus
    assert isinstance(corpus, Corpus)
    assert corpus.doc_ids == tiny_fixture.doc_ids and corpus.vectors is tiny_fixture.document_vectors
    assert corpus.titles[0] == "Aspirin and platelet aggregation" and corpus.texts == tuple(
        d.text for d in tiny_fixture.documents)
    assert (corpus.namespace, corpus.fixture_sha256, corpus.dimensions) == ("tiny-test", tiny_fixture.sha256, 384)


@pytest.mark.real_data
def test_the_real_fixtures_records(scifact_archive: Path, scifact_corpus: CorpusFixture) -> None:
    fixture = scifact_corpus
    assert (len(fixture.documents), len(fixture.queries)) == (5183, 300)
    assert (fixture.document_vectors.shape, fixture.query_vectors.shape) == ((5183, 384), (300, 384))
    assert fixture.document("4983").title == ("Microstructural development of human newborn cerebral white matter "
                                              "assessed in vivo by diffusion tensor magnetic resonance imaging.")
    assert [len(fixture.split(name)) for name in ("calibration", "heldout", "all")] == [100, 200, 300]
    assert sum(q.split == "calibration" for q in fixture.queries) == 100
    assert sum(len(q.relevant) for q in fixture.queries) == 339
    assert all(set(q.relevant) <= set(fixture.doc_ids) for q in fixture.queries)
    doc_id, query = fixture.doc_ids[4000], fixture.split("heldout")[7]
    assert np.array_equal(fixture.document_vector(doc_id), fixture.document_vectors[4000])
    assert np.array_equal(fixture.query_vector(query.query_id),
                          fixture.query_vectors[fixture.query_ids.index(query.query_id)])
    assert isinstance(query, Query) and query.split == "heldout"
    assert fixture.corpus.doc_ids == fixture.doc_ids and len(fixture.corpus.titles) == 5183
