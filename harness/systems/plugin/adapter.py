"""A system from outside the harness behind the system-under-test interface: it answers in its worker process, and
the harness keeps the receipts and checks every answer against the fixture."""

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from harness import modes
from harness.errors import HarnessError
from harness.fixture.corpus_fixture import CorpusFixture
from harness.hashing import sha256_canonical, sha256_file, sha256_tree
from harness.systems.plugin.api import Corpus, LaneStatistics, Ranking, Result
from harness.systems.plugin.client import PluginError, Worker, WorkerFault
from harness.systems.plugin.evidence import dense_backend, hits_of, search_receipt
from harness.systems.plugin.rules import check_answer
from harness.systems.protocol import SearchOutcome, SystemIdentity

DIGEST_RULE = ("sha256 of canonical JSON {part name: sha256 of the file, or of canonical JSON {path: sha256} of a "
               "directory}")
LATENCY_SCOPE = ("the system's search call, timed inside its worker process: its own query handling and ranking; not "
                 "the pipe between the harness and the worker, the harness's checks of the answer, receipt assembly, "
                 "metrics or serialization")
LATENCY_TIMER = "time.perf_counter_ns in the system's worker process, around its search call"


def corpus_of(fixture: CorpusFixture, namespace: str) -> Corpus:
    """The fixture's corpus under the namespace the system holds it (the contract's)."""
    return replace(fixture.corpus, namespace=namespace)


def corpus_request(corpus: Corpus, directory: Path) -> tuple[dict[str, Any], dict[str, NDArray[np.float32]]]:
    """What a worker is handed to build or open the system: the corpus and the system's directory, nothing else."""
    return ({"doc_ids": list(corpus.doc_ids), "titles": list(corpus.titles), "texts": list(corpus.texts),
             "namespace": corpus.namespace, "fixture_sha256": corpus.fixture_sha256, "directory": str(directory)},
            {"vectors": corpus.vectors})


def _digest(name: str, path: Path) -> str:
    if path.is_dir():
        return sha256_tree(path)
    if path.is_file():
        return sha256_file(path)
    raise HarnessError(f"the system's part {name!r} ({path}) is missing: rebuild the system in a new --store-dir")


@dataclass(frozen=True)
class Loaded:
    """What the system declares when its worker loads it."""

    name: str
    version: str
    modes: tuple[str, ...]
    environment: tuple[str, ...]


def _inside(directory: Path, part: str) -> str:
    """A part as the receipt names it: its path inside the system's directory; one outside it by its name alone,
    which the validator then cannot find to re-hash (a receipt names no local place)."""
    absolute, root = Path(os.path.abspath(part)), Path(os.path.abspath(directory))
    return absolute.relative_to(root).as_posix() if absolute.is_relative_to(root) else absolute.name


def _results(reply: dict[str, Any], mode: str, spec: str) -> Ranking:
    """The worker's rendering of an answer (harness.systems.plugin.host); one off that shape is the harness's fault."""
    try:
        return Ranking((Result(r["doc_id"], r["score"], {str(n): (lane[0], lane[1]) for n, lane in r["lanes"].items()})
                        for r in reply["results"]),
                       {str(lane): LaneStatistics.from_record(record)
                        for lane, record in (reply.get("statistics") or {}).items()})
    except (KeyError, TypeError, IndexError, AttributeError) as exc:
        raise WorkerFault(f"a fault of the harness: the worker process of system {spec!r} rendered the answer to "
                          f"search({mode!r}) off the harness's protocol ({exc!r}); report it") from exc


@dataclass
class PluginSystem:
    worker: Worker
    loaded: Loaded
    spec: str
    corpus: Corpus
    directory: Path
    options: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.position = {doc_id: i for i, doc_id in enumerate(self.corpus.doc_ids, start=1)}  # fact ids from 1
        described = self.worker.ask("describe")
        self.declarations: dict[str, Any] = described["declarations"]
        self.engine: dict[str, str] = described["engine"]
        self.configuration: dict[str, Any] = described["configuration"]
        self.config_sha256 = sha256_canonical(self.configuration)
        self.backend = dense_backend(self.engine, self.declarations, self.corpus.vectors)
        self._identity = SystemIdentity(
            name=self.loaded.name, spec=self.spec, version=self.loaded.version, package=described["package"],
            configuration=self.configuration, configuration_sha256=self.config_sha256, source=described["source"],
            engine=self.engine, declarations=self.declarations, options=dict(self.options),
            modules=described["modules"], distributions=described["distributions"],
            distribution_files=described["distribution_files"], environment=described["environment"])
        self._sha256 = sha256_canonical(self.part_digests())

    @property
    def modes(self) -> tuple[str, ...]:
        return self.loaded.modes

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
        return self._identity

    def _parts(self) -> dict[str, str]:
        parts: dict[str, str] = self.worker.ask("parts")["parts"]
        return parts

    def part_digests(self) -> dict[str, str]:
        return {name: _digest(name, Path(path)) for name, path in sorted(self._parts().items())}

    def search(self, mode: str, text: str, vector: NDArray[np.float32] | None, top_k: int) -> SearchOutcome:
        reply = self.worker.ask("search", {"mode": mode, "text": text, "top_k": top_k},
                                None if vector is None else {"vector": vector})
        results, latency_ms = _results(reply, mode, self.spec), int(reply["elapsed_ns"]) / 1e6
        check_answer(results, mode, top_k, self.position, self.declarations, latency_ms)
        hits = hits_of(results, mode, self.position, self.declarations)
        return SearchOutcome(mode, top_k, hits, {"vector": vector, "statistics": results.statistics},
                             latency_ms=latency_ms)

    def release(self) -> None:
        if self.worker.lost is None:  # a process that is gone holds nothing any more
            self.worker.ask("close")

    def processes(self) -> tuple[int, ...]:
        return (self.worker.pid,)

    def verify_bound(self) -> None:
        now, bound = self.worker.ask("loaded"), self._identity
        added = sorted(set(now["modules"]) - set(bound.modules)) + sorted(
            set(now["distributions"]) - set(bound.distributions))
        if added:
            raise PluginError(f"system {self.loaded.name!r} imported {', '.join(added)} while searching, after it was "
                              "opened: the receipt binds only what is loaded once the system is opened; import it when "
                              "the system's module is imported, so the receipt binds it")
        changed = sorted(name for name, module in bound.modules.items() if now["modules"].get(name, module) != module)
        changed += sorted(name for name, version in bound.distributions.items()
                          if now["distributions"].get(name, version) != version
                          or now["distribution_files"].get(name) != bound.distribution_files.get(name))
        if changed:
            raise PluginError(f"system {self.loaded.name!r}: {', '.join(changed)} changed during the run (a file "
                              "re-hashed to another sha256, or another version): leave the system's code alone while "
                              "it runs, then run again")

    def close(self) -> None:
        self.worker.close()

    def search_receipt(self, outcome: SearchOutcome, text: str, request_id: str) -> dict[str, Any]:
        return search_receipt(outcome, text, request_id, backend=self.backend, declarations=self.declarations,
                              config_sha256=self.config_sha256, store_sha256=self.sha256, namespace=self.namespace)

    def _mapping_sha256(self) -> str:
        return sha256_canonical({"doc_to_fact": self.position})

    def store_receipt(self, before: str, after: dict[str, str]) -> dict[str, Any]:
        parts = self._parts()
        return {"system": self.loaded.name, "directory_name": Path(os.path.abspath(self.directory)).name,
                "namespace": self.namespace, "document_count": len(self.corpus.doc_ids),
                "parts": {name: {"path": _inside(self.directory, parts[name]), "sha256": digest}
                          for name, digest in after.items()},
                "attested": self.worker.ask("attested")["attested"],
                "mapping_rule": "fact id = the document's position in the fixture, counting from 1",
                "mapping_sha256": self._mapping_sha256(), "store_sha256": self.sha256,
                "before_run_sha256": before, "after_run_sha256": sha256_canonical(after), "digest_rule": DIGEST_RULE}

    def retrieval_receipt(self, mode: str, top_k: int) -> dict[str, Any]:
        declared = modes.mode(mode)
        return {"mode": mode, "top_k": top_k, "config": self.configuration, "config_sha256": self.config_sha256,
                "backend": self.backend if declared.dense else None,
                "lexical": {"engine": self.declarations.get("lexical", "the system's own lexical engine")}
                if declared.lexical else None, "latency_scope": LATENCY_SCOPE, "latency_timer": LATENCY_TIMER}

    def capabilities(self) -> dict[str, dict[str, Any]]:
        return {}

    def freeze_record(self) -> dict[str, Any]:
        return {"directory_name": Path(os.path.abspath(self.directory)).name, "store_sha256": self.sha256,
                "mapping_sha256": self._mapping_sha256()}
