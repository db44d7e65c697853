"""A run made outside the harness as the system under test: its rankings are read from the run file its directory
keeps (a byte copy of the file given, with `run-file.json` naming it), never searched. Its one mode is `run_file`
(harness/schemas/modes.json): a ranking the harness neither produced nor can replay, so no lane evidence.

The run file is this system's one part: the receipts bind its sha256, the freeze binds it, and the validator reads it
again with its own reader. The harness hands a system each query's text, so the file's rankings are found by the
text of the query their id names (two queries of one text are refused when the store is built).
"""

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from harness.atomic import create_all_atomic
from harness.errors import HarnessError
from harness.fixture.corpus_fixture import CorpusFixture
from harness.hashing import sha256_bytes, sha256_canonical, sha256_text
from harness.source_digest import PACKAGE_ROOT, source_files
from harness.systems.protocol import Hit, SearchOutcome, SystemIdentity
from harness.systems.runfile.formats import TIE_RULE, RunFile, read_run
from harness.systems.runfile.store_record import RECORD_NAME, StoredRun, read_record, record_bytes
from harness.systems.source import source_record

MODE = "run_file"
SPEC = "run-file"
VERSION = "1"
DIGEST_RULE = "sha256 of canonical JSON {part name: sha256 of the file}"
LATENCY_SCOPE = ("not the latency of the system that made the run: a lookup of the query's ranking in the run file "
                 "the harness read, timed only so the row has its field")
LATENCY_TIMER = "time.perf_counter_ns around the lookup"
RANKING = "made outside the harness, read from the run file; not replayed"


class RunFileStoreError(HarnessError):
    """A run file's directory that holds another run, or none."""


def _queries_by_text(fixture: CorpusFixture) -> dict[str, str]:
    by_text: dict[str, str] = {}
    for query in fixture.data["queries"]:
        other = by_text.setdefault(query["text"], query["query_id"])
        if other != query["query_id"]:
            raise RunFileStoreError(f"queries {other!r} and {query['query_id']!r} of the fixture have the same text: "
                                    "the harness finds a run file's ranking by the text of the query it names, so "
                                    "this dataset's run files cannot be told apart; merge or rename the queries")
    return by_text


@dataclass
class RunFileSystem:
    directory: Path
    stored: StoredRun
    run: RunFile
    fixture: CorpusFixture
    namespace_: str

    def __post_init__(self) -> None:
        self.by_text = _queries_by_text(self.fixture)
        self.position = {doc["doc_id"]: i for i, doc in enumerate(self.fixture.data["documents"], start=1)}
        self.configuration: dict[str, Any] = {
            "run_file": self.stored.summary(), "tie_break": TIE_RULE, "ranking": RANKING}
        self.config_sha256 = sha256_canonical(self.configuration)
        self._source = source_record(PACKAGE_ROOT.parent, source_files())

    @property
    def modes(self) -> tuple[str, ...]:
        return (MODE,)

    @property
    def state_directory(self) -> Path:
        return self.directory

    @property
    def namespace(self) -> str:
        return self.namespace_

    @property
    def sha256(self) -> str:
        return sha256_canonical(self.part_digests())

    def identity(self) -> SystemIdentity:
        return SystemIdentity(
            name=self.stored.name, spec=SPEC, version=VERSION, package=None, configuration=self.configuration,
            configuration_sha256=self.config_sha256, source=dict(self._source),
            engine={"name": "a run file read by the harness", "version": self.stored.format},
            declarations={"ranking": "run_file", "depth_ranking": True})

    def part_digests(self) -> dict[str, str]:
        return {"run": sha256_bytes((self.directory / self.stored.file).read_bytes())}

    def _hits(self, query_id: str, depth: int) -> list[Hit]:
        ranked = self.run.rankings.get(query_id, [])[:depth]
        return [Hit(doc_id, self.position[doc_id], score, {}) for doc_id, score in ranked]

    def search(self, mode: str, text: str, vector: NDArray[np.float32] | None, top_k: int) -> SearchOutcome:
        query_id = self.by_text[text]
        return SearchOutcome(mode, top_k, self._hits(query_id, top_k), {"query_id": query_id})

    def deepen(self, outcome: SearchOutcome, depth: int) -> list[Hit]:
        return self._hits(outcome.evidence["query_id"], depth)

    def release(self) -> None:
        """Nothing is held open: the run was read into memory."""

    def processes(self) -> tuple[int, ...]:
        return ()

    def verify_bound(self) -> None:
        """The reader is the harness's own code, bound by the harness's source digest."""

    def search_receipt(self, outcome: SearchOutcome, text: str, request_id: str) -> dict[str, Any]:
        return {"request_id": request_id, "mode": outcome.mode, "query_sha256": sha256_text(text),
                "top_k": outcome.top_k, "config_sha256": self.config_sha256, "store_sha256": self.sha256,
                "namespace": self.namespace, "lanes": {}, "result_count": len(outcome.hits),
                "results_sha256": sha256_canonical([[hit.doc_id, hit.fact_id, hit.score] for hit in outcome.hits])}

    def _mapping_sha256(self) -> str:
        return sha256_canonical({"doc_to_fact": self.position})

    def store_receipt(self, before: str, after: dict[str, str]) -> dict[str, Any]:
        return {"system": self.stored.name, "directory_name": Path(os.path.abspath(self.directory)).name,
                "namespace": self.namespace, "document_count": len(self.position),
                "parts": {name: {"path": self.stored.file, "sha256": digest} for name, digest in after.items()},
                "attested": {}, "mapping_rule": "fact id = the document's position in the fixture, counting from 1",
                "mapping_sha256": self._mapping_sha256(), "store_sha256": self.sha256,
                "before_run_sha256": before, "after_run_sha256": sha256_canonical(after), "digest_rule": DIGEST_RULE}

    def retrieval_receipt(self, mode: str, top_k: int) -> dict[str, Any]:
        return {"mode": mode, "top_k": top_k, "config": self.configuration, "config_sha256": self.config_sha256,
                "backend": None, "lexical": None, "latency_scope": LATENCY_SCOPE, "latency_timer": LATENCY_TIMER}

    def capabilities(self) -> dict[str, dict[str, Any]]:
        return {}

    def freeze_record(self) -> dict[str, Any]:
        return {"directory_name": Path(os.path.abspath(self.directory)).name, "store_sha256": self.sha256,
                "mapping_sha256": self._mapping_sha256()}


def _read(fixture: CorpusFixture, data: bytes, file: str, fmt: str) -> RunFile:
    return read_run(data, file, fmt, {q["query_id"] for q in fixture.data["queries"]},
                    {d["doc_id"] for d in fixture.data["documents"]})


@dataclass(frozen=True)
class RunFileBuilder:
    """Keeps a run file in a directory of its own (`build`) and reads it back (`open`). `given` is the run file the
    command names (None: the one the directory keeps), `name` the run's producer, `fmt` trec, json or auto."""

    namespace: str
    given: Path | None = None
    name: str | None = None
    fmt: str = "auto"

    @property
    def modes(self) -> tuple[str, ...]:
        return (MODE,)

    def build(self, fixture: CorpusFixture, directory: Path) -> tuple[RunFileSystem, bool]:
        kept = read_record(directory)
        if kept is not None:
            return self._opened(fixture, directory, kept), False
        if self.given is None:
            raise RunFileStoreError(f"{directory} keeps no run file yet: name the run file to evaluate "
                                    "(scifact-harness evaluate RUN_FILE ...)")
        data = self.given.read_bytes()
        run = _read(fixture, data, str(self.given), self.fmt)
        stored = StoredRun.of(data, self.given.name, run, self.name)
        directory.mkdir(parents=True, exist_ok=True)
        create_all_atomic({directory / stored.file: data, directory / RECORD_NAME: record_bytes(stored)})
        return RunFileSystem(directory, stored, run, fixture, self.namespace), True

    def open(self, fixture: CorpusFixture, directory: Path) -> RunFileSystem:
        kept = read_record(directory)
        if kept is None:
            raise RunFileStoreError(f"{directory} keeps no run file: evaluate its calibration split first "
                                    "(scifact-harness evaluate RUN_FILE --split calibration ...)")
        return self._opened(fixture, directory, kept)

    def _opened(self, fixture: CorpusFixture, directory: Path, kept: StoredRun) -> RunFileSystem:
        data = (directory / kept.file).read_bytes()
        if sha256_bytes(data) != kept.sha256:
            raise RunFileStoreError(f"{directory / kept.file} is not the run file {RECORD_NAME} records (sha256 "
                                    f"{kept.sha256}): the kept copy changed; evaluate the run again in a new "
                                    "--store-dir")
        if self.given is not None and sha256_bytes(self.given.read_bytes()) != kept.sha256:
            raise RunFileStoreError(
                f"{directory} keeps the run file {kept.given_name!r} of {kept.name!r} (sha256 {kept.sha256}), not "
                f"{self.given}: a directory keeps one run, and a held-out evaluation reads the run file the freeze "
                "binds; evaluate another run file with a --store-dir (and --output-dir) of its own")
        if self.name is not None and self.name != kept.name:
            raise RunFileStoreError(f"{directory} keeps the run of {kept.name!r}, not of {self.name!r}: name it as it "
                                    "was named, or use a --store-dir of its own")
        run = _read(fixture, data, str(directory / kept.file), kept.format)
        return RunFileSystem(directory, kept, run, fixture, self.namespace)

    def close(self) -> None:
        """Nothing runs outside the harness's process."""
