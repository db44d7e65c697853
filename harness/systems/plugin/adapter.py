"""A plugin behind the system-under-test interface: the harness keeps the receipts, the plugin only ranks."""

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from harness import modes
from harness.errors import HarnessError
from harness.fixture.corpus_fixture import CorpusFixture
from harness.hashing import sha256_canonical, sha256_file, sha256_tree
from harness.systems.plugin.api import Corpus, RetrievalSystem
from harness.systems.plugin.evidence import dense_backend, hits_of, search_receipt
from harness.systems.protocol import SearchOutcome, SystemIdentity
from harness.systems.source import package_of, source_record, source_root

DIGEST_RULE = ("sha256 of canonical JSON {part name: sha256 of the file, or of canonical JSON {path: sha256} of a "
               "directory}")


def corpus_of(fixture: CorpusFixture, namespace: str) -> Corpus:
    documents = fixture.data["documents"]
    return Corpus(tuple(d["doc_id"] for d in documents), tuple(d["title"] for d in documents),
                  tuple(d["text"] for d in documents), fixture.document_vectors, namespace, fixture.sha256)


def _digest(name: str, path: Path) -> str:
    if path.is_dir():
        return sha256_tree(path)
    if path.is_file():
        return sha256_file(path)
    raise HarnessError(f"the system's part {name!r} ({path}) is missing: rebuild the system in a new --store-dir")


@dataclass
class PluginSystem:
    plugin: RetrievalSystem
    spec: str
    corpus: Corpus
    directory: Path
    options: dict[str, str] = field(default_factory=dict)
    _identity: SystemIdentity | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.position = {doc_id: i for i, doc_id in enumerate(self.corpus.doc_ids, start=1)}  # fact ids from 1
        self.declarations: dict[str, Any] = dict(getattr(self.plugin, "declarations", {}) or {})
        engine = getattr(self.plugin, "engine", None)
        self.engine: dict[str, str] = (dict(engine()) if callable(engine)
                                       else {"name": self.plugin.name, "version": self.plugin.version})
        self.configuration = self.plugin.configuration()
        self.config_sha256 = sha256_canonical(self.configuration)
        self.backend = dense_backend(self.engine, self.declarations, self.corpus.vectors)
        self._sha256 = sha256_canonical(self.part_digests())

    @property
    def modes(self) -> tuple[str, ...]:
        return tuple(self.plugin.modes)

    @property
    def state_directory(self) -> Path:
        return self.directory

    @property
    def namespace(self) -> str:
        return self.corpus.namespace

    @property
    def sha256(self) -> str:
        return self._sha256

    def identity(self) -> SystemIdentity:
        if self._identity is None:
            self._identity = SystemIdentity(
                name=self.plugin.name, spec=self.spec, version=self.plugin.version, package=package_of(self.plugin),
                configuration=self.configuration, configuration_sha256=self.config_sha256,
                source=source_record(*source_root(self.plugin)), engine=self.engine, declarations=self.declarations,
                options=dict(self.options))
        return self._identity

    def part_digests(self) -> dict[str, str]:
        return {name: _digest(name, Path(path)) for name, path in sorted(self.plugin.parts().items())}

    def search(self, mode: str, text: str, vector: NDArray[np.float32] | None, top_k: int) -> SearchOutcome:
        results = self.plugin.search(mode, text, vector, top_k)
        return SearchOutcome(mode, top_k, hits_of(results, mode, top_k, self.position, self.declarations),
                             {"vector": vector})

    def release(self) -> None:
        close = getattr(self.plugin, "close", None)
        if callable(close):
            close()

    def search_receipt(self, outcome: SearchOutcome, text: str, request_id: str) -> dict[str, Any]:
        return search_receipt(outcome, text, request_id, backend=self.backend, declarations=self.declarations,
                              config_sha256=self.config_sha256, store_sha256=self.sha256, namespace=self.namespace)

    def _mapping_sha256(self) -> str:
        return sha256_canonical({"doc_to_fact": self.position})

    def store_receipt(self, before: str, after: dict[str, str]) -> dict[str, Any]:
        parts = self.plugin.parts()
        attested = getattr(self.plugin, "attested", None)
        return {"system": self.plugin.name, "directory": os.path.abspath(self.directory),
                "namespace": self.namespace, "document_count": len(self.corpus.doc_ids),
                "parts": {name: {"path": os.path.abspath(parts[name]), "sha256": digest}
                          for name, digest in after.items()},
                "attested": dict(attested()) if callable(attested) else {},
                "mapping_rule": "fact id = the document's position in the fixture, counting from 1",
                "mapping_sha256": self._mapping_sha256(), "store_sha256": self.sha256,
                "before_run_sha256": before, "after_run_sha256": sha256_canonical(after), "digest_rule": DIGEST_RULE}

    def retrieval_receipt(self, mode: str, top_k: int) -> dict[str, Any]:
        declared = modes.mode(mode)
        return {"mode": mode, "top_k": top_k, "config": self.configuration, "config_sha256": self.config_sha256,
                "backend": self.backend if declared.dense else None,
                "lexical": {"engine": self.declarations.get("lexical", "the system's own lexical engine")}
                if declared.lexical else None}

    def capabilities(self) -> dict[str, dict[str, Any]]:
        return {}

    def freeze_record(self) -> dict[str, Any]:
        return {"directory": str(self.directory.resolve()), "store_sha256": self.sha256,
                "mapping_sha256": self._mapping_sha256()}


class PluginError(HarnessError):
    """A plugin refused or failed to build or open its system."""


def _call(plugin: RetrievalSystem, method: str, corpus: Corpus, directory: Path) -> object:
    try:
        return getattr(plugin, method)(corpus, directory)
    except HarnessError:
        raise
    except Exception as exc:  # the plugin's own refusal or failure, named, in one line
        raise PluginError(f"system {plugin.name!r} could not {method} in {directory}: {type(exc).__name__}: {exc}"
                          ) from exc


@dataclass(frozen=True)
class PluginBuilder:
    plugin: RetrievalSystem
    spec: str
    namespace: str
    options: dict[str, str] = field(default_factory=dict)

    @property
    def modes(self) -> tuple[str, ...]:
        return tuple(self.plugin.modes)

    def build(self, fixture: CorpusFixture, directory: Path) -> tuple[PluginSystem, bool]:
        corpus = corpus_of(fixture, self.namespace)
        directory.mkdir(parents=True, exist_ok=True)
        changed = bool(_call(self.plugin, "build", corpus, directory))
        return PluginSystem(self.plugin, self.spec, corpus, directory, self.options), changed

    def open(self, fixture: CorpusFixture, directory: Path) -> PluginSystem:
        if not directory.is_dir():
            raise HarnessError(f"--store-dir {directory} holds no built system: run `python -m harness run` first")
        corpus = corpus_of(fixture, self.namespace)
        _call(self.plugin, "open", corpus, directory)
        return PluginSystem(self.plugin, self.spec, corpus, directory, self.options)
