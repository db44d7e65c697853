"""The built-in system behind the system-under-test interface: the SQLite store and its lexical and dense lanes."""

import copy
import importlib.metadata
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from harness import modes
from harness.fixture.corpus_fixture import CorpusFixture
from harness.hashing import sha256_canonical
from harness.source_digest import PACKAGE_ROOT, source_files
from harness.systems.builtin.config.search_config import SearchConfig, unavailable_capabilities
from harness.systems.builtin.search.searcher import Searcher
from harness.systems.builtin.store.store import Store, build_store, open_store, part_digests
from harness.systems.names import BUILTIN
from harness.systems.protocol import DENSE_EXACT, Hit, SearchOutcome, SystemIdentity
from harness.systems.source import source_record

NAME = BUILTIN
VERSION = "2"  # the built-in system's own version, as receipts, freezes and reports name it beside its name


def engine() -> dict[str, str]:
    versions = {"sqlite": sqlite3.sqlite_version, "bm25s": importlib.metadata.version("bm25s"),
                "numpy": np.__version__}
    return {"name": "sqlite3 + bm25s + numpy", "version": ", ".join(f"{k} {v}" for k, v in versions.items())}


def _name(path: Path) -> str:
    """Receipts name the store's directory and files, never their place: the digests say what they are."""
    return Path(os.path.abspath(path)).name


@dataclass
class BuiltinSystem:
    store: Store
    config: SearchConfig

    def __post_init__(self) -> None:
        self.searcher = Searcher(self.store, self.config)
        self._source: dict[str, Any] | None = None

    def _source_record(self) -> dict[str, Any]:
        """The harness's source as this system first read it (the code it runs was imported before that), a copy
        each time: a run asks for its identity about ten times, and each reading hashed every file again."""
        if self._source is None:
            self._source = source_record(PACKAGE_ROOT.parent, source_files())
        return copy.deepcopy(self._source)

    @property
    def modes(self) -> tuple[str, ...]:
        return modes.SEARCHED

    @property
    def state_directory(self) -> Path:
        return self.store.directory

    @property
    def sha256(self) -> str:
        return self.store.sha256

    @property
    def namespace(self) -> str:
        return self.store.namespace

    def identity(self) -> SystemIdentity:
        config = self.config
        return SystemIdentity(
            name=NAME, spec=NAME, version=VERSION, package=None, configuration=config.to_dict(),
            configuration_sha256=config.sha256(), source=self._source_record(),
            engine=engine(),
            declarations={"dense": DENSE_EXACT, "lexical": "bm25 (Lucene IDF) from the store's tokenizer record",
                          "fusion": {"method": "rrf", "k": config.rrf_k,
                                     "candidate_depth": config.hybrid_candidate_depth}})

    def part_digests(self) -> dict[str, str]:
        return part_digests(self.store.directory)

    def search(self, mode: str, text: str, vector: NDArray[np.float32] | None, top_k: int) -> SearchOutcome:
        return self.searcher.search(mode, text, vector, top_k)

    def deepen(self, outcome: SearchOutcome, depth: int) -> list[Hit]:
        return self.searcher.deepen(outcome, depth)

    def release(self) -> None:
        """Nothing to let go of: the store's files are read into memory when it opens."""

    def processes(self) -> tuple[int, ...]:
        return ()  # it searches in the harness's own process

    def verify_bound(self) -> None:
        """The built-in system is the harness's own code, bound by the harness's source digest."""

    def search_receipt(self, outcome: SearchOutcome, text: str, request_id: str) -> dict[str, Any]:
        return self.searcher.receipt(outcome, text, request_id)

    def store_receipt(self, before: str, after: dict[str, str]) -> dict[str, Any]:
        """`after` are the part digests hashed after the run; the after-run digest is derived from them."""
        store = self.store
        return {
            "directory_name": _name(store.directory),
            "namespace": store.namespace,
            "document_count": len(store.doc_ids),
            "database_file": store.database_path.relative_to(store.directory).as_posix(),
            "database_sha256": after["database"],
            "mapping_file": store.mapping_path.relative_to(store.directory).as_posix(),
            "mapping_sha256": after["mapping"],
            "lexical_sha256": after["lexical"],
            "dense_sha256": after["dense"],
            "store_sha256": store.sha256,
            "before_run_sha256": before,
            "after_run_sha256": sha256_canonical(after),
            "digest_rule": "sha256 of canonical JSON {database, mapping, lexical, dense: sha256}",
        }

    def retrieval_receipt(self, mode: str, top_k: int) -> dict[str, Any]:
        declared = modes.mode(mode)
        return {"mode": mode, "top_k": top_k, "config": self.config.to_dict(),
                "config_sha256": self.searcher.config_sha256,
                "backend": self.store.dense.evidence() if declared.dense else None,
                "lexical": self.store.lexical.tokenizer.record() if declared.lexical else None}

    def capabilities(self) -> dict[str, dict[str, Any]]:
        return unavailable_capabilities()

    def freeze_record(self) -> dict[str, Any]:
        return {"directory_name": _name(self.store.directory), "store_sha256": self.store.sha256,
                "mapping_file": self.store.mapping_path.relative_to(self.store.directory).as_posix(),
                "mapping_sha256": part_digests(self.store.directory)["mapping"]}


@dataclass(frozen=True)
class BuiltinBuilder:
    """Builds the built-in system under a contract's namespace with one search configuration."""

    namespace: str
    config: SearchConfig

    @property
    def modes(self) -> tuple[str, ...]:
        return modes.SEARCHED

    def build(self, fixture: CorpusFixture, directory: Path) -> tuple[BuiltinSystem, bool]:
        store, changed = build_store(directory, fixture, self.namespace, self.config.lexical)
        return BuiltinSystem(store, self.config), changed

    def open(self, fixture: CorpusFixture, directory: Path) -> BuiltinSystem:
        return BuiltinSystem(open_store(directory, fixture, self.namespace, self.config.lexical), self.config)

    def close(self) -> None:
        """Nothing runs outside the harness's process."""
