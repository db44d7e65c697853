"""Build, resume, verify and open the persisted store.

Layout of a store directory:
    facts.sqlite3   SQLite (WAL) fact database, checkpointed when the build ends
    mapping.json    versioned sidecar: BEIR doc id -> fact id
    lexical/        bm25s index plus the tokenizer record that bm25s does not save itself
    dense.f32       the vector matrix in fact-id order (little-endian float32)
    store.json      manifest: what the store is bound to and the sha256 of every part; written last
A directory with a manifest is complete. One without is an interrupted build, resumed on the next
build. A store bound to another fixture, namespace or lexical configuration is refused.
"""

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from harness.atomic import atomic_writer, write_bytes_atomic
from harness.errors import HarnessError
from harness.fixture.corpus_fixture import CorpusFixture
from harness.hashing import canonical_json
from harness.json_input import read_document
from harness.locks import store_lock
from harness.schema_check import validate
from harness.systems.builtin.config.search_config import LexicalConfig
from harness.systems.builtin.index.dense import DenseIndex
from harness.systems.builtin.index.lexical import LexicalIndex
from harness.systems.builtin.index.lexical_build import LexicalBuilder
from harness.systems.builtin.index.ranking import tie_ranks
from harness.systems.builtin.store import facts_db
from harness.systems.builtin.store.manifest import DATABASE as DATABASE
from harness.systems.builtin.store.manifest import DENSE as DENSE
from harness.systems.builtin.store.manifest import FRESH, differences, refuse, verified_manifest, write_manifest
from harness.systems.builtin.store.manifest import LEXICAL as LEXICAL
from harness.systems.builtin.store.manifest import MANIFEST as MANIFEST
from harness.systems.builtin.store.manifest import MAPPING as MAPPING
from harness.systems.builtin.store.manifest import StoreIntegrityError as StoreIntegrityError
from harness.systems.builtin.store.manifest import StoreMismatchError as StoreMismatchError
from harness.systems.builtin.store.manifest import part_digests as part_digests
from harness.systems.builtin.store.manifest import store_digest as store_digest

MAPPING_SCHEMA = "scifact-store-mapping-v1"


@contextmanager
def unreadable_database(directory: Path) -> Iterator[None]:
    try:
        yield
    except sqlite3.DatabaseError as exc:
        raise StoreIntegrityError(f"store part {directory / DATABASE} cannot be read as SQLite ({exc}); "
                                  f"{FRESH}") from exc


def lexical_text(title: str, text: str) -> str:
    return " ".join(part for part in (title.strip(), text.strip()) if part)


def binding(fixture: CorpusFixture, namespace: str, lexical: LexicalConfig) -> dict[str, Any]:
    """What a store is built from; two builds with equal bindings produce the same store."""
    return {
        "namespace": namespace,
        "fixture_sha256": fixture.sha256,
        "documents": len(fixture.data["documents"]),
        "dimensions": fixture.data["vectors"]["dimensions"],
        "embedding_identity_sha256": fixture.data["embedding"]["identity_sha256"],
        "lexical": asdict(lexical),
    }


@dataclass
class Store:
    directory: Path
    manifest: dict[str, Any]
    doc_ids: list[str]  # BEIR doc id of each fact, in fact-id order
    fact_ids: NDArray[np.int64]
    ties: NDArray[np.int64]
    lexical: LexicalIndex
    dense: DenseIndex

    @property
    def namespace(self) -> str:
        return str(self.manifest["binding"]["namespace"])

    @property
    def sha256(self) -> str:
        return str(self.manifest["store_sha256"])

    @property
    def mapping_path(self) -> Path:
        return self.directory / MAPPING

    @property
    def database_path(self) -> Path:
        return self.directory / DATABASE


def _ingest(directory: Path, fixture: CorpusFixture, wanted: dict[str, Any], order: list[int] | None) -> None:
    connection = facts_db.connect(directory / DATABASE)
    try:
        facts_db.create(connection, {"binding": json.dumps(wanted, sort_keys=True)})
        try:
            recorded = json.loads(facts_db.read_meta(connection)["binding"])
        except (KeyError, ValueError):
            raise StoreIntegrityError(f"store part {directory / DATABASE} records no readable binding; "
                                      f"{FRESH}") from None
        if recorded != wanted:
            raise refuse(directory, differences(recorded, wanted))
        documents = fixture.data["documents"]
        done = facts_db.inserted_ordinals(connection)
        todo = [i for i in (order if order is not None else range(len(documents))) if i not in done]
        facts_db.insert_facts(connection, wanted["namespace"], (
            (i, document["title"], document["text"], fixture.document_vectors[i])
            for i, document in ((i, documents[i]) for i in todo)))
        _write_derived(directory, fixture, wanted, connection)
        facts_db.checkpoint(connection)
    finally:
        connection.close()


def _checked_facts(directory: Path, fixture: CorpusFixture,
                   connection: sqlite3.Connection) -> Iterator[tuple[list[facts_db.Fact], list[str]]]:
    """The facts in fact-id order, a chunk at a time with their documents' ids, each fact checked to be its fixture
    document: first that every ordinal occurs exactly once, then each fact's title, text and vector bytes."""
    documents = fixture.data["documents"]
    if sorted(facts_db.ordinals(connection)) != list(range(len(documents))):
        raise StoreIntegrityError(f"{directory / DATABASE} does not hold each fixture document exactly once; "
                                  "build a fresh store in a new --store-dir")
    for chunk in facts_db.facts_in_chunks(connection):
        read = [documents[row[1]] for row in chunk]
        _check_facts(directory, fixture, chunk, read)
        yield chunk, [document["doc_id"] for document in read]


def _check_facts(directory: Path, fixture: CorpusFixture, facts: list[facts_db.Fact],
                 documents: list[dict[str, Any]]) -> None:
    """Every fact is its fixture document (`documents`, in the same order): its title, text and vector bytes."""
    for (_, ordinal, title, body, _, vector), document in zip(facts, documents, strict=True):
        differing = [name for name, found, wanted in (
            ("title", title, document["title"]), ("text", body, document["text"]),
            ("vector", vector, np.ascontiguousarray(fixture.document_vectors[ordinal], dtype="<f4").tobytes()))
            if found != wanted]
        if differing:
            raise StoreIntegrityError(f"{directory / DATABASE} holds document {document['doc_id']!r} with another "
                                      f"{' and '.join(differing)} than the fixture's; the store is not this fixture's. "
                                      "Build a fresh store in a new --store-dir")


def _write_derived(directory: Path, fixture: CorpusFixture, wanted: dict[str, Any],
                   connection: sqlite3.Connection) -> None:
    """The dense matrix, the lexical index and the mapping, from one pass over the checked facts."""
    lexical = LexicalBuilder(LexicalConfig(**wanted["lexical"]))
    doc_to_fact: dict[str, int] = {}
    facts = 0
    with atomic_writer(directory / DENSE) as dense:
        for chunk, doc_ids in _checked_facts(directory, fixture, connection):
            lexical.add([lexical_text(row[2], row[3]) for row in chunk])
            dense.write(b"".join(row[5] for row in chunk))  # each vector's little-endian float32 bytes, checked
            doc_to_fact.update(zip(doc_ids, (row[0] for row in chunk), strict=True))
            facts += len(chunk)
    lexical.finish().save(directory / LEXICAL)
    mapping = {"schema": MAPPING_SCHEMA, "namespace": wanted["namespace"], "fixture_sha256": wanted["fixture_sha256"],
               "documents": facts, "doc_to_fact": doc_to_fact}
    validate(mapping, "store-mapping")
    write_bytes_atomic(directory / MAPPING, canonical_json(mapping) + b"\n")


def _load(directory: Path, manifest: dict[str, Any], fixture: CorpusFixture) -> Store:
    fact_ids: list[int] = []
    fact_doc_ids: list[str] = []
    with unreadable_database(directory):
        connection = facts_db.connect(directory / DATABASE, read_only=True)
        try:
            for chunk, doc_ids in _checked_facts(directory, fixture, connection):
                fact_ids.extend(row[0] for row in chunk)
                fact_doc_ids.extend(doc_ids)
        finally:
            connection.close()
    mapping = read_document(directory / MAPPING, "store mapping", "store-mapping", FRESH, StoreIntegrityError)
    pairs = sorted(mapping["doc_to_fact"].items(), key=lambda item: item[1])
    doc_ids = [doc_id for doc_id, _ in pairs]
    if [fact_id for _, fact_id in pairs] != fact_ids or set(doc_ids) != set(fact_doc_ids):
        raise StoreIntegrityError(f"store mapping {directory / MAPPING} does not pair each fact of "
                                  f"{directory / DATABASE} with its document; {FRESH}")
    dims = int(manifest["binding"]["dimensions"])
    size = (directory / DENSE).stat().st_size
    if size != 4 * dims * len(fact_ids):
        raise StoreIntegrityError(f"store part {directory / DENSE} holds {size} bytes, not {len(fact_ids)} vectors "
                                  f"of {dims} dimensions; {FRESH}")
    matrix = np.fromfile(directory / DENSE, dtype="<f4").reshape(-1, dims)
    return Store(directory, manifest, doc_ids, np.array([f for _, f in pairs], dtype=np.int64), tie_ranks(doc_ids),
                 LexicalIndex.load(directory / LEXICAL, LexicalConfig(**manifest["binding"]["lexical"])),
                 DenseIndex(matrix))


def build_store(directory: Path, fixture: CorpusFixture, namespace: str, lexical: LexicalConfig,
                insertion_order: list[int] | None = None) -> tuple[Store, bool]:
    """Build, resume or reuse the store; return it and whether this call changed anything on disk."""
    wanted = binding(fixture, namespace, lexical)
    with store_lock(directory, exclusive=True):
        if (directory / MANIFEST).exists():
            return _load(directory, verified_manifest(directory, wanted), fixture), False
        with unreadable_database(directory):
            _ingest(directory, fixture, wanted, insertion_order)
        write_manifest(directory, wanted)
        return _load(directory, verified_manifest(directory, wanted), fixture), True


def open_store(directory: Path, fixture: CorpusFixture, namespace: str, lexical: LexicalConfig) -> Store:
    """Open a complete store; a build in progress is waited for, never read half-way."""
    wanted = binding(fixture, namespace, lexical)
    if not directory.is_dir():
        raise HarnessError(f"{directory} holds no complete store; build it first")
    with store_lock(directory, exclusive=False):
        if not (directory / MANIFEST).exists():
            raise HarnessError(f"{directory} holds no complete store; build it first")
        return _load(directory, verified_manifest(directory, wanted), fixture)
