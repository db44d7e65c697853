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
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..atomic import write_bytes_atomic
from ..errors import HarnessError
from ..fixture import CorpusFixture
from ..hashing import canonical_json, sha256_canonical, sha256_file
from ..retrieval.config import LexicalConfig
from ..retrieval.dense import DenseIndex
from ..retrieval.lexical import LexicalIndex
from ..retrieval.ranking import tie_ranks
from ..schema_check import validate
from . import facts_db
from .locking import store_lock

STORE_SCHEMA = "scifact-store-v1"
MAPPING_SCHEMA = "scifact-store-mapping-v1"
DATABASE, MAPPING, LEXICAL, DENSE, MANIFEST = ("facts.sqlite3", "mapping.json", "lexical", "dense.f32", "store.json")


class StoreMismatchError(HarnessError):
    """The store directory belongs to other inputs."""


class StoreIntegrityError(HarnessError):
    """A store file changed after the store was built."""


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


def _directory_digest(directory: Path) -> str:
    files = sorted(p for p in directory.rglob("*") if p.is_file())
    return sha256_canonical({p.relative_to(directory).as_posix(): sha256_file(p) for p in files})


def part_digests(directory: Path) -> dict[str, str]:
    return {
        "database": sha256_file(directory / DATABASE),
        "mapping": sha256_file(directory / MAPPING),
        "lexical": _directory_digest(directory / LEXICAL),
        "dense": sha256_file(directory / DENSE),
    }


def store_digest(directory: Path) -> str:
    """One digest over every part, recomputed from the files as they are now."""
    return sha256_canonical(part_digests(directory))


def _differences(recorded: dict[str, Any], wanted: dict[str, Any]) -> list[str]:
    return [f"{key}: store has {recorded.get(key)!r}, requested {wanted[key]!r}"
            for key in wanted if recorded.get(key) != wanted[key]]


def _refuse(directory: Path, differences: list[str]) -> StoreMismatchError:
    return StoreMismatchError(
        f"store {directory} was built from other inputs ({'; '.join(differences)}). "
        "A store is never rebuilt in place; pass a fresh --store-dir."
    )


def _ingest(directory: Path, fixture: CorpusFixture, wanted: dict[str, Any], order: list[int] | None) -> None:
    connection = facts_db.connect(directory / DATABASE)
    try:
        facts_db.create(connection, {"binding": json.dumps(wanted, sort_keys=True)})
        recorded = json.loads(facts_db.read_meta(connection)["binding"])
        if recorded != wanted:
            raise _refuse(directory, _differences(recorded, wanted))
        documents = fixture.data["documents"]
        done = facts_db.inserted_ordinals(connection)
        todo = [i for i in (order if order is not None else range(len(documents))) if i not in done]
        facts_db.insert_facts(connection, wanted["namespace"], (
            (i, documents[i]["title"], documents[i]["text"], fixture.document_vectors[i]) for i in todo))
        facts = facts_db.all_facts(connection)
        _write_derived(directory, fixture, wanted, facts)
        facts_db.checkpoint(connection)
    finally:
        connection.close()


def _check_facts(directory: Path, fixture: CorpusFixture, facts: list[tuple[int, int, str, str, int, bytes]]) -> None:
    """Every fact is its fixture document: each ordinal once, with the document's title, text and vector bytes."""
    documents = fixture.data["documents"]
    if sorted(row[1] for row in facts) != list(range(len(documents))):
        raise StoreIntegrityError(f"{directory / DATABASE} does not hold each fixture document exactly once; "
                                  "build a fresh store in a new --store-dir")
    for _, ordinal, title, body, _, vector in facts:
        document = documents[ordinal]
        differing = [name for name, found, wanted in (
            ("title", title, document["title"]), ("text", body, document["text"]),
            ("vector", vector, np.ascontiguousarray(fixture.document_vectors[ordinal], dtype="<f4").tobytes()))
            if found != wanted]
        if differing:
            raise StoreIntegrityError(f"{directory / DATABASE} holds document {document['doc_id']!r} with another "
                                      f"{' and '.join(differing)} than the fixture's; the store is not this fixture's. "
                                      "Build a fresh store in a new --store-dir")


def _write_derived(directory: Path, fixture: CorpusFixture, wanted: dict[str, Any],
                   facts: list[tuple[int, int, str, str, int, bytes]]) -> None:
    documents = fixture.data["documents"]
    _check_facts(directory, fixture, facts)
    matrix = np.vstack([np.frombuffer(row[5], dtype="<f4") for row in facts])
    LexicalIndex.build([lexical_text(row[2], row[3]) for row in facts], LexicalConfig(**wanted["lexical"])).save(
        directory / LEXICAL)
    write_bytes_atomic(directory / DENSE, np.ascontiguousarray(matrix, dtype="<f4").tobytes())
    mapping = {"schema": MAPPING_SCHEMA, "namespace": wanted["namespace"], "fixture_sha256": wanted["fixture_sha256"],
               "documents": len(facts), "doc_to_fact": {documents[row[1]]["doc_id"]: row[0] for row in facts}}
    validate(mapping, "store-mapping")
    write_bytes_atomic(directory / MAPPING, canonical_json(mapping) + b"\n")


def _write_manifest(directory: Path, wanted: dict[str, Any]) -> None:
    parts = part_digests(directory)
    manifest = {"schema": STORE_SCHEMA, "binding": wanted,
                "parts": {name: {"path": path, "sha256": parts[name]} for name, path in
                          (("database", DATABASE), ("mapping", MAPPING), ("lexical", LEXICAL), ("dense", DENSE))},
                "store_sha256": sha256_canonical(parts)}
    validate(manifest, "store-manifest")
    write_bytes_atomic(directory / MANIFEST, json.dumps(manifest, indent=1).encode("utf-8") + b"\n")


def _verified_manifest(directory: Path, wanted: dict[str, Any]) -> dict[str, Any]:
    manifest: dict[str, Any] = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    differences = _differences(manifest.get("binding", {}), wanted)
    if differences:
        raise _refuse(directory, differences)
    for name, part in manifest["parts"].items():
        if not (directory / part["path"]).exists():
            raise StoreIntegrityError(f"store part {name} ({directory / part['path']}) is missing; "
                                      "the store is damaged, build a fresh one")
    current = part_digests(directory)
    for name, part in manifest["parts"].items():
        if current[name] != part["sha256"]:
            raise StoreIntegrityError(f"store part {name} ({directory / part['path']}) has {current[name]}, "
                                      f"the manifest records {part['sha256']}: it changed after the build")
    if sha256_canonical(current) != manifest["store_sha256"]:
        raise StoreIntegrityError(f"{directory / MANIFEST} records store_sha256 {manifest['store_sha256']}, but "
                                  f"its parts digest to {sha256_canonical(current)}")
    return manifest


def _load(directory: Path, manifest: dict[str, Any], fixture: CorpusFixture) -> Store:
    connection = facts_db.connect(directory / DATABASE, read_only=True)
    try:
        _check_facts(directory, fixture, facts_db.all_facts(connection))
    finally:
        connection.close()
    mapping = json.loads((directory / MAPPING).read_text(encoding="utf-8"))
    pairs = sorted(mapping["doc_to_fact"].items(), key=lambda item: item[1])
    doc_ids = [doc_id for doc_id, _ in pairs]
    dims = int(manifest["binding"]["dimensions"])
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
            return _load(directory, _verified_manifest(directory, wanted), fixture), False
        _ingest(directory, fixture, wanted, insertion_order)
        _write_manifest(directory, wanted)
        return _load(directory, _verified_manifest(directory, wanted), fixture), True


def open_store(directory: Path, fixture: CorpusFixture, namespace: str, lexical: LexicalConfig) -> Store:
    """Open a complete store; a build in progress is waited for, never read half-way."""
    wanted = binding(fixture, namespace, lexical)
    if not directory.is_dir():
        raise HarnessError(f"{directory} holds no complete store; build it first")
    with store_lock(directory, exclusive=False):
        if not (directory / MANIFEST).exists():
            raise HarnessError(f"{directory} holds no complete store; build it first")
        return _load(directory, _verified_manifest(directory, wanted), fixture)
