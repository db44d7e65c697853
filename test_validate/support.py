"""Helpers for the validator tests: the clean tiny run, per-test copies of it, and edits that reseal digests.

The clean run is generated once per session (see conftest.py). Every test that changes anything works
on its own copy of the output directory; the fixture and store stay shared and are never written,
except by tests that copy them first and place the copy in the output copy's locations.json.
"""

import hashlib
import json
import os
import shutil
import sqlite3
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fixtures.archives import TINY_DATASET
from harness.evaluation.gates.freeze import FREEZE_NAME
from harness.evaluation.history.ledger import LEDGER
from harness.evaluation.receipts.artifacts import aggregate_name, rows_name
from harness.evaluation.receipts.locations import FIXTURES, LOCATIONS_NAME, STORES
from harness.validator.core.report import FAIL, Report

Row = dict[str, Any]
Json = dict[str, Any]

MODES = ("fts_only", "vector_only", "hybrid")
SPLITS = ("calibration", "heldout")
# The receipts record the repository's real git state at generation time: in a dirty work tree
# 'source.clean' fails, and if HEAD moves during the session 'source.git' does. Nothing else may.
GIT_CHECKS = frozenset({"source.clean", "source.git"})


def sha256_bytes(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    return sha256_bytes(path.read_bytes())


def sha256_canonical(value: Any) -> str:
    """The canonical-JSON rule the artifacts state (sorted keys, ',' and ':', no ASCII escaping)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return sha256_bytes(text.encode("utf-8"))


def canonical_text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def rows_bytes(rows: list[Row]) -> bytes:
    """The runner's JSONL layout: compact separators, one row per line, newline-terminated."""
    return b"".join(json.dumps(row, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
                    + b"\n" for row in rows)


def reseal_search_receipt(row: Row) -> None:
    """Recompute a row's search-receipt digest (and the results digest it binds) after editing the row."""
    receipt = row["search_receipt"]
    if row["error"] is None:
        receipt["results_sha256"] = sha256_canonical([[r["doc_id"], r["fact_id"], r["score"]]
                                                      for r in row["results"]])
    row["search_receipt_sha256"] = sha256_canonical(receipt)


def failed_names(report: Report) -> set[str]:
    return {check.name for check in report.failed}


def check_named(report: Report, name: str) -> Any:
    matches = [check for check in report.checks if check.name == name]
    assert len(matches) == 1, f"expected exactly one check named {name!r}, got {len(matches)}"
    return matches[0]


def describe(report: Report) -> str:
    return "\n".join(check.line() for check in report.checks)


def artifact_in(out: Path, tail: str) -> Path:
    """The one file of `out` named DATASET + `tail` (`-hybrid-heldout.aggregate.json`): its dataset is the run's."""
    found = sorted(path for path in out.iterdir() if path.name.endswith(tail) and len(path.name) > len(tail))
    assert len(found) == 1, f"{out} holds {[p.name for p in found]} ending {tail}, not one"
    return found[0]


class OutputPaths:
    """The artifact paths inside an output directory `out`."""

    out: Path

    @property
    def freeze_path(self) -> Path:
        return self.out / FREEZE_NAME

    def aggregate_path(self, mode: str, split: str) -> Path:
        return self.out / aggregate_name(TINY_DATASET, mode, split)

    def rows_path(self, mode: str, split: str) -> Path:
        return self.out / rows_name(TINY_DATASET, mode, split)


@dataclass(frozen=True)
class CleanRun(OutputPaths):
    """The session's clean artifacts: fixture, store and one output directory with six runs and a freeze."""

    root: Path
    fixture_path: Path
    store_dir: Path
    out: Path


@dataclass(frozen=True)
class RunCopy(OutputPaths):
    """A private copy of the output directory (its receipts name the freeze beside them, and its locations.json places
    the shared fixture and store)."""

    clean: CleanRun
    out: Path
    scratch: Path  # for copies of the fixture or store, beside the output copy

    @classmethod
    def make(cls, clean: CleanRun, tmp_path: Path) -> "RunCopy":
        out = tmp_path / "out"
        shutil.copytree(clean.out, out)
        copy = cls(clean, out, tmp_path / "scratch")
        copy.scratch.mkdir()
        return copy

    @property
    def locations_path(self) -> Path:
        return self.out / LOCATIONS_NAME

    def locations(self) -> Json:
        value: Json = json.loads(self.locations_path.read_text(encoding="utf-8"))
        return value

    def place(self, kind: str, path: Path) -> None:
        """Make the copy's locations.json place every entry of `kind` at `path` (the receipts are unchanged)."""
        places = self.locations()
        places[kind] = {digest: str(path) for digest in places[kind]}
        self._write_json(self.locations_path, places)

    @staticmethod
    def _write_json(path: Path, value: Any) -> None:
        path.write_bytes(json.dumps(value, ensure_ascii=False, allow_nan=False, indent=1).encode("utf-8") + b"\n")

    def aggregate(self, mode: str, split: str) -> Json:
        value: Json = json.loads(self.aggregate_path(mode, split).read_text(encoding="utf-8"))
        return value

    def write_aggregate(self, mode: str, split: str, aggregate: Json) -> Path:
        self._write_json(self.aggregate_path(mode, split), aggregate)
        self._follow(aggregate)
        return self.aggregate_path(mode, split)

    def _follow(self, aggregate: Json) -> None:
        """A receipt edited to another fixture or store digest: the copy's locations.json places the private fixture
        or store copy (else the shared one) under that digest too, as a forger keeping the unbound hint in step
        would."""
        fixture, store = self.scratch / "fixture" / self.clean.fixture_path.name, self.scratch / "store"
        try:
            digests = {FIXTURES: aggregate["receipt"]["corpus"]["fixture_sha256"],
                       STORES: aggregate["receipt"]["store"]["store_sha256"]}
        except (KeyError, TypeError):
            return
        places = self.locations()
        shared_places = ((FIXTURES, fixture, self.clean.fixture_path), (STORES, store, self.clean.store_dir))
        for kind, copied, shared in shared_places:
            if not isinstance(digests[kind], str):
                continue
            if copied.exists():
                places[kind][digests[kind]] = str(copied)
            else:
                places[kind].setdefault(digests[kind], os.path.abspath(shared))
        self._write_json(self.locations_path, places)

    def edit_aggregate(self, mode: str, split: str, change: Callable[[Json], object]) -> Path:
        aggregate = self.aggregate(mode, split)
        change(aggregate)
        return self.write_aggregate(mode, split, aggregate)

    def edit_receipt(self, mode: str, split: str, change: Callable[[Json], object]) -> Path:
        return self.edit_aggregate(mode, split, lambda aggregate: change(aggregate["receipt"]))

    def rows(self, mode: str, split: str) -> list[Row]:
        return [json.loads(line) for line in self.rows_path(mode, split).read_bytes().splitlines()]

    def write_rows(self, mode: str, split: str, rows: list[Row], *, reseal_digest: bool,
                   reseal_count: bool = False) -> Path:
        """Write rows; optionally keep the aggregate's per_query_sha256 (and row_count) consistent with them,
        so that the validator gets past its file-level checks to the deeper check under test."""
        data = rows_bytes(rows)
        self.rows_path(mode, split).write_bytes(data)
        if reseal_digest or reseal_count:
            aggregate = self.aggregate(mode, split)
            if reseal_digest:
                aggregate["per_query_sha256"] = sha256_bytes(data)
            if reseal_count:
                aggregate["row_count"] = len(rows)
            self.write_aggregate(mode, split, aggregate)
        return self.aggregate_path(mode, split)

    def edit_rows(self, mode: str, split: str, change: Callable[[list[Row]], list[Row] | None], *,
                  reseal_digest: bool = True, reseal_count: bool = False) -> Path:
        rows = self.rows(mode, split)
        changed = change(rows)
        return self.write_rows(mode, split, rows if changed is None else changed, reseal_digest=reseal_digest,
                               reseal_count=reseal_count)

    def copy_store(self) -> Path:
        """A private store and run ledger, placed by the copy's locations.json (the receipts are unchanged)."""
        store = self.scratch / "store"
        shutil.copytree(self.clean.store_dir, store)
        self.place(STORES, store)
        return store

    def copy_fixture(self) -> tuple[Path, Path]:
        """A private fixture and sidecar, placed by the copy's locations.json; returns both paths."""
        directory = self.scratch / "fixture"
        directory.mkdir()
        fixture = directory / self.clean.fixture_path.name
        shutil.copy2(self.clean.fixture_path, fixture)
        sidecar_name = json.loads(fixture.read_text(encoding="utf-8"))["vectors"]["file"]
        shutil.copy2(self.clean.fixture_path.parent / sidecar_name, directory / sidecar_name)
        self.place(FIXTURES, fixture)
        return fixture, directory / sidecar_name


def flip_byte(path: Path, offset: int = 0) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x01
    path.write_bytes(bytes(data))


def assert_fails(report: Report, names: tuple[str, ...] | frozenset[str], *,
                 allowed: frozenset[str] = frozenset()) -> None:
    """Each of `names` FAILs, and nothing fails beyond `names`, `allowed` and the git-state checks."""
    failed = failed_names(report)
    missing = [name for name in names if name not in failed]
    assert not missing, f"{missing} did not fail:\n{describe(report)}"
    extra = failed - set(names) - allowed - GIT_CHECKS
    assert not extra, f"unexpected failures {sorted(extra)}:\n{describe(report)}"
    assert all(check.status == FAIL for check in report.checks if check.name in names)


# --- the run ledger, edited by hand with the sqlite3 module, as anyone with write access to the store could -----

GENESIS = "sha256:" + "0" * 64
HistoryRow = tuple[int, str, str, str]  # position, event text, previous digest, digest


def chain_digest(previous: str, text: str) -> str:
    return sha256_bytes(f"{previous}\n{text}".encode())


def writable_history(store: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(store / LEDGER, isolation_level=None)
    connection.execute("DROP TRIGGER IF EXISTS history_no_update")
    connection.execute("DROP TRIGGER IF EXISTS history_no_delete")
    return connection


def history_rows(store: Path) -> list[HistoryRow]:
    with closing(sqlite3.connect(store / LEDGER)) as connection:
        return connection.execute("SELECT position, event, previous_digest, digest FROM history "
                                  "ORDER BY position").fetchall()


def history_event(store: Path, kind: str, **fields: Any) -> tuple[int, Json]:
    """The first event of `kind` whose fields include `fields`, with its position."""
    for position, text, _, _ in history_rows(store):
        event = json.loads(text)
        if event["event"] == kind and all(event.get(k) == v for k, v in fields.items()):
            return position, event
    raise AssertionError(f"no {kind} event with {fields} in {store / LEDGER}")


def replace_event_text(store: Path, position: int, text: str) -> None:
    """Edit one event in place, leaving its digest and the rest of the chain as they were."""
    with closing(writable_history(store)) as connection:
        connection.execute("UPDATE history SET event = ? WHERE position = ?", (text, position))


def append_event(store: Path, event: Json) -> tuple[int, str]:
    """Append an event at the end of the chain, chained correctly; return its position and digest."""
    position, _, _, previous = history_rows(store)[-1]
    text = canonical_text(event)
    digest = chain_digest(previous, text)
    with closing(writable_history(store)) as connection:
        connection.execute("INSERT INTO history VALUES (?, ?, ?, ?)", (position + 1, text, previous, digest))
    return position + 1, digest


def rechain_history(store: Path, events: list[Json]) -> None:
    """Replace the history by `events`, numbered from 1 and chained by the rule: a consistent rewrite."""
    with closing(writable_history(store)) as connection:
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("DELETE FROM history")
        previous = GENESIS
        for position, event in enumerate(events, start=1):
            text = canonical_text(event)
            digest = chain_digest(previous, text)
            connection.execute("INSERT INTO history VALUES (?, ?, ?, ?)", (position, text, previous, digest))
            previous = digest
        connection.execute("COMMIT")


def set_run(store: Path, run_id: str, status: str, finished_at: str | None) -> None:
    """The runs table's record of how a run ended."""
    with closing(sqlite3.connect(store / LEDGER, isolation_level=None)) as connection:
        connection.execute("UPDATE runs SET status = ?, finished_at = ? WHERE run_id = ?",
                           (status, finished_at, run_id))


def rewrite_history(store: Path, keep: Callable[[Json], bool]) -> None:
    """Delete the events (and runs) `keep` refuses, renumber and rechain the rest: a consistent rewrite."""
    events = [json.loads(text) for _, text, _, _ in history_rows(store)]
    dropped_runs = {event["run_id"] for event in events if not keep(event) and "run_id" in event}
    with closing(sqlite3.connect(store / LEDGER, isolation_level=None)) as connection:
        for run_id in dropped_runs:
            connection.execute("DELETE FROM requests WHERE run_id = ?", (run_id,))
            connection.execute("DELETE FROM runs WHERE run_id = ?", (run_id,))
    rechain_history(store, [event for event in events if keep(event)])
