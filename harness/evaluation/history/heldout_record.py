"""The per-user record of held-out looks: every held-out and all-query run of a claim-profile fixture on this
machine, whatever store, output directory, configuration or fixture build it ran with. Looks are counted per
dataset (dataset_key: its name and pinned content digests and held-out split), never per fixture bytes: a fixture
rebuilt with one vector moved by one ulp is the same dataset, and its looks count the earlier ones.

A store's run ledger allows one held-out run per mode and store, but stores are free: a new store directory
is a new ledger. This record lives outside every store, in the user's cache directory, so each look at a
fixture's held-out split is counted whichever store it went through. Where it is:

    $SCIFACT_HELDOUT_RECORD (a file path), else $XDG_CACHE_HOME/scifact-harness/heldout-looks.sqlite3
    (XDG_CACHE_HOME only when absolute), else ~/.cache/scifact-harness/heldout-looks.sqlite3

A run appends its entry after the store's ledger numbers it and before its first query is searched (warm-up
included), so a run that crashes or is killed afterwards still counts. The file is SQLite: `meta` holds the
record's random id (made with the file), `looks` one entry per row, append-only (triggers refuse UPDATE and
DELETE), each chained to the one before exactly as the run ledger's history is:

    digest = "sha256:" + hex(sha256(UTF-8 of previous_digest + "\\n" + entry_json))

An entry (canonical JSON): dataset, dataset_sha256, fixture_sha256 (for people), split, mode, system,
configuration_sha256, store_sha256, store_directory, freeze_sha256, recorded_at, host, machine_id (machine_identity),
run_id. A configuration is (system, configuration_sha256, store_sha256). An entry written before entries named
their dataset (no dataset_sha256) counts for the dataset of a run on its very fixture. Each write is one BEGIN
IMMEDIATE transaction with synchronous=FULL, so concurrent writers
(xdist workers, parallel runs) wait their turn and no entry is lost. The record is evidence kept by the user
who ran it: whoever can write it can rewrite it, so what it says is attested, not proven.
"""

import json
import os
import sqlite3
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import EnvironmentProblem, HarnessError, LockTimeout
from harness.evaluation.history.ledger import GENESIS, chain_digest
from harness.evaluation.history.machine_identity import machine_id
from harness.hashing import CANONICAL_JSON_RULE, canonical_json, sha256_canonical

RECORD_VARIABLE = "SCIFACT_HELDOUT_RECORD"
RECORD_NAME = "heldout-looks.sqlite3"
BUSY_TIMEOUT_SECONDS = 60.0
DATASET_RULE = ('dataset_sha256 = sha256_canonical({"dataset": the ir_datasets id, else the contract name, '
                '"documents", "queries", "qrels": the pinned content digests, "calibration_count": the contract\'s}); '
                "looks are counted per dataset, whatever the fixture's bytes")
CHAIN_RULE = ('digest = "sha256:" + hex(sha256(UTF-8 of previous_digest + "\\n" + entry_json)); entry_json is '
              f"{CANONICAL_JSON_RULE}; previous_digest is the digest of the entry at the position before, "
              '"sha256:" + 64 zeros for position 1; positions count from 1 without gaps')
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS looks (
    position INTEGER PRIMARY KEY,
    entry TEXT NOT NULL,
    previous_digest TEXT NOT NULL,
    digest TEXT NOT NULL UNIQUE
);
CREATE TRIGGER IF NOT EXISTS looks_no_update BEFORE UPDATE ON looks
BEGIN SELECT RAISE(ABORT, 'the held-out record is append-only'); END;
CREATE TRIGGER IF NOT EXISTS looks_no_delete BEFORE DELETE ON looks
BEGIN SELECT RAISE(ABORT, 'the held-out record is append-only'); END;
CREATE TRIGGER IF NOT EXISTS meta_no_update BEFORE UPDATE ON meta
BEGIN SELECT RAISE(ABORT, 'the held-out record is append-only'); END;
"""


class HeldoutRecordError(HarnessError):
    """The per-user held-out record is not the SQLite file the harness writes."""


@dataclass(frozen=True)
class Look:
    """A run's entry in the record, and what the record held before it (the receipt's `heldout_looks`)."""

    path: Path
    record_id: str
    position: int
    digest: str
    entry: dict[str, Any]
    looks_before: int
    other_configurations_before: int
    earlier_looks_at: list[str]  # when each earlier look at the dataset was recorded, in record order

    def receipt(self) -> dict[str, Any]:
        # named by the rule that finds it, never by its place
        return {"record": f"{self.path.name}: ${RECORD_VARIABLE}, else the user's cache directory",
                "record_id": self.record_id, "host": self.entry["host"], "machine_id": self.entry["machine_id"],
                "rule": CHAIN_RULE,
                "dataset": {"name": self.entry["dataset"], "sha256": self.entry["dataset_sha256"],
                            "rule": DATASET_RULE},
                "entry": {"position": self.position, "digest": self.digest},
                "looks_before": self.looks_before, "other_configurations_before": self.other_configurations_before,
                "earlier_looks_at": self.earlier_looks_at}


def dataset_key(name: str, payload_hashes: dict[str, Any], calibration_count: int) -> str:
    """The dataset's key in the record (DATASET_RULE)."""
    return sha256_canonical({"dataset": name, "calibration_count": calibration_count,
                             **{part: payload_hashes[part] for part in ("documents", "queries", "qrels")}})


def same_dataset(entry: dict[str, Any], dataset_sha256: str, fixture_sha256: str) -> bool:
    """Whether `entry` is a look at the dataset (an entry without a dataset: at the very fixture)."""
    if "dataset_sha256" in entry:
        return bool(entry["dataset_sha256"] == dataset_sha256)
    return bool(entry.get("fixture_sha256") == fixture_sha256)


def record_path() -> Path:
    """Where this user's record is on this machine (the module docstring's rule)."""
    named = os.environ.get(RECORD_VARIABLE)
    if named:
        return Path(named).expanduser().absolute()
    cache = os.environ.get("XDG_CACHE_HOME")
    base = Path(cache) if cache and Path(cache).is_absolute() else Path.home() / ".cache"
    return base / "scifact-harness" / RECORD_NAME


def configuration(entry: dict[str, Any]) -> tuple[Any, Any, Any]:
    return entry.get("system"), entry.get("configuration_sha256"), entry.get("store_sha256")


def _problem(path: Path, exc: BaseException) -> HarnessError:
    text = str(exc)
    if isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text):
        return LockTimeout(f"the held-out record {path} stayed locked by another process for "
                           f"{BUSY_TIMEOUT_SECONDS:g} s ({exc}); let it finish, then rerun")
    if isinstance(exc, OSError) or (isinstance(exc, sqlite3.OperationalError) and any(
            words in text for words in ("unable to open", "readonly", "disk I/O", "database or disk is full"))):
        return EnvironmentProblem(f"the held-out record {path} cannot be written ({type(exc).__name__}: {exc}); "
                                  f"make its directory writable, or set {RECORD_VARIABLE} to a file you can write "
                                  "(a held-out run never starts without its entry)")
    return HeldoutRecordError(
        f"the held-out record {path} is not the SQLite file the harness writes ({type(exc).__name__}: {exc}). It "
        "counts every held-out look on this machine, so it is never replaced: restore it from a copy, or set "
        f"{RECORD_VARIABLE} to another file (the count then starts again from nothing)")


def _connect(path: Path) -> sqlite3.Connection:
    """A connection with the tables in place (created in their own statements: executescript would commit an open
    transaction, so it runs before the caller's BEGIN IMMEDIATE)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_SECONDS)
    try:
        connection.execute("PRAGMA synchronous=FULL")
        connection.executescript(SCHEMA)
    except BaseException:
        connection.close()
        raise
    return connection


def _record_id(connection: sqlite3.Connection) -> str:
    connection.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('record_id', ?)", (uuid.uuid4().hex,))
    return str(connection.execute("SELECT value FROM meta WHERE key = 'record_id'").fetchone()[0])


def _entries(connection: sqlite3.Connection) -> list[tuple[int, str, dict[str, Any]]]:
    rows = []
    for position, text, digest in connection.execute("SELECT position, entry, digest FROM looks ORDER BY position"):
        entry = json.loads(text)
        if not isinstance(entry, dict):
            raise ValueError(f"the entry at position {position} is not a JSON object")
        rows.append((int(position), str(digest), entry))
    return rows


def prepare() -> Path:
    """Open the record (created when new) before a held-out run is numbered: a record that cannot be written stops
    the run before the store's history spends its held-out turn."""
    path = record_path()
    try:
        connection = _connect(path)
        try:
            with connection:
                connection.execute("BEGIN IMMEDIATE")
                _record_id(connection)
        finally:
            connection.close()
    except (OSError, sqlite3.Error) as exc:
        raise _problem(path, exc) from exc
    return path


def append_look(*, dataset: str, dataset_sha256: str, fixture_sha256: str, split: str, mode: str, system: str,
                configuration_sha256: str, store_sha256: str, store_directory: str, freeze_sha256: str, host: str,
                run_id: str) -> Look:
    """Append one look, in one transaction with the count of what came before it at the same dataset."""
    path = record_path()
    entry = {"dataset": dataset, "dataset_sha256": dataset_sha256, "fixture_sha256": fixture_sha256, "split": split,
             "mode": mode, "system": system, "configuration_sha256": configuration_sha256,
             "store_sha256": store_sha256, "store_directory": store_directory, "freeze_sha256": freeze_sha256,
             "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "host": host,
             "machine_id": machine_id(), "run_id": run_id}
    text = canonical_json(entry).decode("utf-8")
    try:
        connection = _connect(path)
        try:
            with connection:
                connection.execute("BEGIN IMMEDIATE")
                record_id = _record_id(connection)
                earlier = [e for _, _, e in _entries(connection) if same_dataset(e, dataset_sha256, fixture_sha256)]
                last = connection.execute("SELECT position, digest FROM looks ORDER BY position DESC "
                                          "LIMIT 1").fetchone()
                position, previous = (int(last[0]) + 1, str(last[1])) if last else (1, GENESIS)
                digest = chain_digest(previous, text)
                connection.execute("INSERT INTO looks (position, entry, previous_digest, digest) VALUES (?, ?, ?, ?)",
                                   (position, text, previous, digest))
        finally:
            connection.close()
    except (OSError, sqlite3.Error, ValueError) as exc:
        raise _problem(path, exc) from exc
    others = {configuration(e) for e in earlier} - {configuration(entry)}
    return Look(path, record_id, position, digest, entry, len(earlier), len(others),
                [str(e.get("recorded_at")) for e in earlier])


@dataclass(frozen=True)
class RecordView:
    path: Path
    record_id: str
    entries: list[dict[str, Any]]

    def dataset_looks(self, dataset_sha256: str, fixture_sha256: str) -> tuple[int, int]:
        """(looks, distinct configurations) at this dataset's held-out split, in the whole record."""
        looks = [e for e in self.entries if same_dataset(e, dataset_sha256, fixture_sha256)]
        return len(looks), len({configuration(e) for e in looks})


def read_record() -> RecordView | None:
    """This machine's record as it is now, read-only; None when there is none."""
    path = record_path()
    if not path.is_file():
        return None
    try:
        connection = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True, timeout=BUSY_TIMEOUT_SECONDS)
        try:
            row = connection.execute("SELECT value FROM meta WHERE key = 'record_id'").fetchone()
            entries = [entry for _, _, entry in _entries(connection)]
        finally:
            connection.close()
    except (sqlite3.Error, ValueError) as exc:
        raise _problem(path, exc) from exc
    if row is None:
        raise _problem(path, ValueError("it holds no record id"))
    return RecordView(path, str(row[0]), entries)
