"""The corpus fixture built with the real packaged model on the tiny corpus."""

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fixtures.archives import tiny_archive, tiny_contract
from harness.atomic import atomic_writer
from harness.corpus.beir import Document, Query
from harness.corpus.dataset import Dataset
from harness.embedding.embedders.base import EmbeddingRequest
from harness.embedding.embedders.local import LocalEmbedder
from harness.errors import FixtureError
from harness.fixture.build import BuildReport, build_fixture, payload_hashes
from harness.fixture.corpus_fixture import load_fixture

pytestmark = pytest.mark.real_model


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, local_embedder: LocalEmbedder) -> tuple[Path, BuildReport]:
    root = tmp_path_factory.mktemp("fixture")
    archive = tiny_archive(root / "tiny.zip")
    report = build_fixture(tiny_contract(), out=root / "out" / "tiny.json", work_dir=root / "work",
                           embedder=local_embedder, archive=archive, progress=False)
    return root, report


def test_fixture_holds_the_corpus_and_unit_vectors(built: tuple[Path, BuildReport]) -> None:
    _, report = built
    assert (report.documents, report.queries, report.qrel_pairs, report.dimensions) == (10, 6, 8, 384)
    assert report.embedded == 16 and report.from_cache == 0
    fixture = load_fixture(report.fixture)
    assert fixture.document_vectors.shape == (10, 384) and fixture.query_vectors.shape == (6, 384)
    norms = np.linalg.norm(np.vstack([fixture.document_vectors, fixture.query_vectors]).astype(np.float64), axis=1)
    assert np.allclose(norms, 1.0, atol=1e-6)
    data = fixture.data
    assert data["semantic_text"]["documents_truncated"] == 1  # d09 only
    d09 = next(d for d in data["documents"] if d["doc_id"] == "d09")
    assert len(d09["semantic_text"]) == 700
    assert data["queries"][0] == {"query_id": "q1", "text": "Aspirin inhibits platelet aggregation.",
                                  "semantic_text": "Aspirin inhibits platelet aggregation.",
                                  "qrels": {"d01": 1, "d08": 1}}
    assert data["embedding"]["identity"]["weights_sha256"].startswith("sha256:")
    assert data["source"]["kind"] == "local-file" and data["source"]["payload_pinned"] is True


def _sha256_of_canonical_json(value: Any) -> str:
    """The written canonical-JSON rule, restated here rather than taken from harness.hashing."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


# The tiny corpus's payload digests, derived outside Python from fixtures/tiny, e.g. for the documents:
#   jq -s -S -c -j 'map({doc_id: ._id, title, text}) | sort_by(.doc_id)' corpus.tiny.jsonl | sha256sum
TINY_PAYLOAD_SHA256 = {
    "documents": "sha256:788ab2332c69ee45f08a22b0d582ba8eb42c888b78e990dbd6ff8d07cc1e763d",
    "queries": "sha256:de1fde5b3c9510e360cbbf519bfe221d5460ddb3a071dfd2ff9c55122eca7061",
    "qrels": "sha256:e3cc974c1d5758c9f1a0d89f887b4202b737820a2a9bafd975d18f39ca34651d",
}


def test_payload_hashes_follow_their_written_definition(built: tuple[Path, BuildReport]) -> None:
    data = json.loads(built[1].fixture.read_bytes())
    assert {key: data["payload_hashes"][key] for key in TINY_PAYLOAD_SHA256} == TINY_PAYLOAD_SHA256
    documents = sorted(({"doc_id": d["doc_id"], "title": d["title"], "text": d["text"]} for d in data["documents"]),
                       key=lambda d: d["doc_id"])
    queries = sorted(({"query_id": q["query_id"], "text": q["text"]} for q in data["queries"]),
                     key=lambda q: q["query_id"])
    qrels = {q["query_id"]: q["qrels"] for q in data["queries"]}
    assert {"documents": _sha256_of_canonical_json(documents), "queries": _sha256_of_canonical_json(queries),
            "qrels": _sha256_of_canonical_json(qrels)} == TINY_PAYLOAD_SHA256


def test_payload_hashes_of_a_small_dataset_match_hand_written_canonical_bytes() -> None:
    """Sorted keys and ids, no spaces, JSON escapes for quote, newline and backslash, and UTF-8 (not \\u escapes)
    for U+1D6FD (f0 9d 9b bd), U+2615 (e2 98 95) and U+00E9 (c3 a9). The digests are sha256sum of these bytes."""
    dataset = Dataset(
        documents=[Document("d2", "Caffeine \u2615", 'Tea "and" coffee\nback\\slash'),
                   Document("d10", "\U0001d6fd-catenin", "Wnt </b>")],
        queries=[Query("q2", "Does \u2615 help?"), Query("q1", "\u00e9")],
        qrels={"q2": {"d2": 2, "d10": 0}, "q1": {"d10": 1}}, members={}, pinned=True)
    documents = (b'[{"doc_id":"d10","text":"Wnt </b>","title":"\xf0\x9d\x9b\xbd-catenin"},'
                 b'{"doc_id":"d2","text":"Tea \\"and\\" coffee\\nback\\\\slash","title":"Caffeine \xe2\x98\x95"}]')
    queries = b'[{"query_id":"q1","text":"\xc3\xa9"},{"query_id":"q2","text":"Does \xe2\x98\x95 help?"}]'
    qrels = b'{"q1":{"d10":1},"q2":{"d10":0,"d2":2}}'
    expected = {
        "documents": "sha256:5de07e11290bcb54742ed33f2b50d4e1513e8976cffdd0ef5f2c935c73086c04",
        "queries": "sha256:6cbaa0692e3644c5651c1be5f438d1b5eda789bf40994f00618e446bb4516029",
        "qrels": "sha256:a6306f898c6758e32233a75271f3148befa6f7f1d28c672eeb50136838a8c7f5",
    }
    by_hand = {"documents": documents, "queries": queries, "qrels": qrels}
    assert {key: "sha256:" + hashlib.sha256(data).hexdigest() for key, data in by_hand.items()} == expected
    found = payload_hashes(dataset)
    assert {key: found[key] for key in expected} == expected


def test_vectors_are_the_models_own_for_the_prefixed_prompt(
    built: tuple[Path, BuildReport], local_embedder: LocalEmbedder
) -> None:
    fixture = load_fixture(built[1].fixture)
    document = fixture.data["documents"][3]
    query = fixture.data["queries"][2]
    raw = list(local_embedder.embed([EmbeddingRequest("d", "search_document: ", document["semantic_text"]),
                                EmbeddingRequest("q", "search_query: ", query["semantic_text"])]))
    for got, want in ((fixture.document_vectors[3], raw[0].values), (fixture.query_vectors[2], raw[1].values)):
        want_unit = np.asarray(want, dtype=np.float64) / np.linalg.norm(want)
        assert float(np.dot(got.astype(np.float64), want_unit)) > 0.99999


def test_rebuild_is_a_cache_hit_with_identical_bytes(
    built: tuple[Path, BuildReport], local_embedder: LocalEmbedder
) -> None:
    root, first = built
    before = {p.name: p.read_bytes() for p in first.fixture.parent.iterdir()}
    again = build_fixture(tiny_contract(), out=first.fixture, work_dir=root / "work", embedder=local_embedder,
                          archive=root / "tiny.zip", progress=False)
    assert again.embedded == 0 and again.from_cache == 16 and not again.changed
    assert {p.name: p.read_bytes() for p in first.fixture.parent.iterdir()} == before


def test_same_inputs_elsewhere_give_the_same_fixture_bytes(
    built: tuple[Path, BuildReport], local_embedder: LocalEmbedder, tmp_path: Path
) -> None:
    """The fixture records what the archive is (its digests), never where it lies: the same archive at
    another path, written to another place, gives the same bytes and so the same fixture digest."""
    root, first = built
    moved = tmp_path / "elsewhere" / "scifact-copy.zip"
    moved.parent.mkdir()
    shutil.copyfile(root / "tiny.zip", moved)
    copy = build_fixture(tiny_contract(), out=tmp_path / "tiny.json", work_dir=root / "work",
                         embedder=local_embedder, archive=moved, progress=False)
    assert copy.archive == moved.resolve() and first.archive == (root / "tiny.zip").resolve()
    assert copy.fixture.read_bytes() == first.fixture.read_bytes()
    assert str(root) not in first.fixture.read_text(encoding="utf-8")


def test_tampered_or_missing_sidecar_is_refused(built: tuple[Path, BuildReport], tmp_path: Path) -> None:
    fixture_path = tmp_path / "tiny.json"
    shutil.copy(built[1].fixture, fixture_path)
    sidecar_name = json.loads(fixture_path.read_bytes())["vectors"]["file"]
    with pytest.raises(FixtureError, match="is missing"):
        load_fixture(fixture_path)
    data = bytearray((built[1].fixture.parent / sidecar_name).read_bytes())
    data[100] ^= 0x01
    (tmp_path / sidecar_name).write_bytes(bytes(data))
    with pytest.raises(FixtureError, match="the fixture records"):
        load_fixture(fixture_path)


def test_fixture_that_breaks_its_schema_is_refused(built: tuple[Path, BuildReport], tmp_path: Path) -> None:
    data = json.loads(built[1].fixture.read_bytes())
    data["documents"][0]["doc_id"] = ""
    (tmp_path / "bad.json").write_text(json.dumps(data))
    with pytest.raises(FixtureError, match=r"bad\.json does not match its schema .*documents/0/doc_id"):
        load_fixture(tmp_path / "bad.json")


def test_interrupted_atomic_write_leaves_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "f.json"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), atomic_writer(target) as handle:
        handle.write(b"new partial")
        raise RuntimeError("killed")
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.json"]
