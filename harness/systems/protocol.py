"""The system under test, as the evaluation sees it: the one interface a retrieval system implements.

A system is built (or opened) from a corpus fixture and never embeds text itself: document vectors come
from the fixture, and each query's vector is handed to `search` by the evaluation. The runner, the
receipts, the freeze and the bundle speak to a system only through these two protocols.
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from harness.errors import HarnessError
from harness.fixture.corpus_fixture import CorpusFixture
from harness.systems.declarations import DENSE_EXACT

__all__ = ["DENSE_EXACT", "Hit", "RanksDeeper", "SearchFailed", "SearchOutcome", "SearchStopped", "SystemBuilder",
           "SystemIdentity", "SystemLost", "SystemUnderTest"]


@dataclass(frozen=True)
class Hit:
    """One ranked document: its BEIR id, the system's own integer id for it, its score, and per-lane evidence."""

    doc_id: str
    fact_id: int
    score: float
    lanes: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class SearchOutcome:
    """What one timed search returned: the hits, best first, and the lane evidence its receipt is made from."""

    mode: str
    top_k: int
    hits: list[Hit]
    evidence: Any
    latency_ms: float | None = None  # timed by the system's own process around its search; None: the caller times it


class SearchFailed(Exception):
    """The system failed one query: its own search raised, or its answer broke a rule of search. `error` says what
    happened and the fix; the row keeps it (the runner adds the system's name) and the latency the system's process
    measured (None when it measured none)."""

    def __init__(self, error: str, latency_ms: float | None) -> None:
        super().__init__(error)
        self.error, self.latency_ms = error, latency_ms


class SystemLost(HarnessError):
    """The system can answer no more (its process ended, hung or broke the protocol): the run stops here."""


class SearchStopped(SystemLost):
    """The system's answer broke a rule that every answer of its code breaks alike (a hybrid's lane keys): the run
    stops at the first query, and nothing is written. `cause` names the rule and the fix; `at` adds the system and
    the query."""

    def __init__(self, cause: str, where: str = "") -> None:
        super().__init__(f"{where}{cause}")
        self.cause = cause

    def at(self, system: str, query_id: str, what: str = "the run") -> "SearchStopped":
        return SearchStopped(self.cause, f"system {system!r} stopped {what} at query {query_id}: ")


@dataclass(frozen=True)
class SystemIdentity:
    """What the system is: how it was named, its version and package, its complete configuration, its source by
    content, its engine, and what it declares the validator may replay (see harness.systems.plugin.api)."""

    name: str
    spec: str
    version: str
    package: dict[str, str] | None
    configuration: dict[str, Any]
    configuration_sha256: str
    source: dict[str, Any]  # harness.systems.source.source_record
    engine: dict[str, str]
    declarations: dict[str, Any]
    options: dict[str, str] = field(default_factory=dict)  # the command line's system options (--milvus-uri)
    # What the system's process ran besides the harness and the standard library: modules by path and sha256,
    # installed distributions by version and by the digest of their RECORD's files, and the declared environment
    # variables by the sha256 of their values.
    modules: dict[str, dict[str, str]] = field(default_factory=dict)
    distributions: dict[str, str] = field(default_factory=dict)
    distribution_files: dict[str, str | None] = field(default_factory=dict)
    environment: dict[str, str | None] = field(default_factory=dict)

    @property
    def source_sha256(self) -> str:
        return str(self.source["sha256"])

    def record(self) -> dict[str, Any]:
        """The receipts' and the freeze's `system` block. The source's root is named, not placed: its directory's
        name (the files and their digests say what it is; where it lies here is the output directory's
        locations.json's to say)."""
        source = {**self.source, "root": Path(str(self.source["root"])).name}
        return {"name": self.name, "spec": self.spec, "version": self.version, "package": self.package,
                "configuration_sha256": self.configuration_sha256, "source": source, "engine": self.engine,
                "declarations": self.declarations, "options": self.options, "modules": self.modules,
                "distributions": self.distributions, "distribution_files": self.distribution_files,
                "environment": self.environment}


class SystemUnderTest(Protocol):
    @property
    def modes(self) -> tuple[str, ...]:
        """The declared modes (harness.modes) this system offers."""

    @property
    def state_directory(self) -> Path:
        """The system's own directory; the evaluation keeps the run ledger of this system there."""

    @property
    def namespace(self) -> str:
        """The namespace the system holds the corpus under (the contract's), recorded in the run ledger."""

    @property
    def sha256(self) -> str:
        """The digest of the system as built, from its persisted parts."""

    def identity(self) -> SystemIdentity: ...

    def part_digests(self) -> dict[str, str]:
        """The sha256 of each persisted part, hashed now (before and after a run they must agree)."""

    def search(self, mode: str, text: str, vector: NDArray[np.float32] | None, top_k: int) -> SearchOutcome:
        """The timed call: rank documents for one query, with ties broken by the system's declared rule. `vector` is
        the fixture's vector of the query text, None for a mode without a dense lane."""

    def release(self) -> None:
        """Let go of what the searches hold open (a connection, a database lock) until the next search, so that
        another process (the validator's replay) can open the system."""

    def processes(self) -> tuple[int, ...]:
        """The ids of the processes besides this one that answer the searches (a system's worker): their CPU time
        and run-queue wait count in the latency's contention verdict."""

    def verify_bound(self) -> None:
        """After the searches: refuse the run if the system ran code that its identity does not bind."""

    def search_receipt(self, outcome: SearchOutcome, text: str, request_id: str) -> dict[str, Any]:
        """The per-query search receipt, assembled after (outside) the timed call."""

    def store_receipt(self, before: str, after: dict[str, str]) -> dict[str, Any]:
        """The run receipt's account of the persisted system: its parts before and after the run."""

    def retrieval_receipt(self, mode: str, top_k: int) -> dict[str, Any]:
        """The run receipt's account of how `mode` retrieves: configuration, backends, tokenizer."""

    def capabilities(self) -> dict[str, dict[str, Any]]:
        """Retrieval capabilities the system does not have, each with its baseline setting and the reason."""

    def freeze_record(self) -> dict[str, Any]:
        """What a freeze binds of the system (compared by digest, never by path)."""


class RanksDeeper(Protocol):
    """A system whose timed call keeps what it scored: the depth-100 diagnostic is cut from the timed call's lanes
    instead of a second search (harness/evaluation/depth_ranking.py). A system without `deepen` is searched again."""

    def deepen(self, outcome: SearchOutcome, depth: int) -> list[Hit]:
        """The ranking to `depth` from `outcome`'s lanes, outside the timed call: exactly the hits `search` returns
        for the same query with top_k = `depth`."""


class SystemBuilder(Protocol):
    @property
    def modes(self) -> tuple[str, ...]:
        """The declared modes the systems this builder makes offer."""

    def build(self, fixture: CorpusFixture, directory: Path) -> tuple[SystemUnderTest, bool]:
        """Build, resume or reuse the system in `directory` from `fixture`; also whether anything changed on disk."""

    def open(self, fixture: CorpusFixture, directory: Path) -> SystemUnderTest:
        """Open a complete system built earlier from `fixture`; never build."""

    def close(self) -> None:
        """Stop what the builder started (a system's worker processes); the systems it made answer no more."""
