"""The per-user held-out record as the validator reads it: found where this machine keeps it, opened read-only, its
hash chain recomputed entry by entry up to the receipt's own entry (what came after it is no part of that run's
verdict), and its looks at a dataset keyed by the validator's own rule. The rules are in check_looks's docstring."""

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.digests import canonical, sha256_canonical
from ..core.strict_json import StrictJSONError, loads
from .ledger_chain import GENESIS, chain_digest

RECORD_VARIABLE = "SCIFACT_HELDOUT_RECORD"
RECORD_NAME = "heldout-looks.sqlite3"
LEGACY_FIELDS: dict[str, Any] = {"fixture_sha256": str, "split": str, "mode": str, "system": str,
                                 "configuration_sha256": str,
                 "store_sha256": str, "store_directory": str, "freeze_sha256": str, "recorded_at": str, "host": str,
                 "run_id": str}  # an entry written before entries named their dataset and machine
ENTRY_FIELDS: dict[str, Any] = {**LEGACY_FIELDS, "dataset": str, "dataset_sha256": str, "machine_id": (str, type(None))}


def dataset_key(name: Any, content: dict[str, Any], calibration_count: Any) -> str:
    """A dataset's key: its name (the ir_datasets id, else the dataset's own name), the content digests of its
    documents, queries and qrels, and its calibration count (which fixes its held-out split)."""
    return sha256_canonical({"dataset": name, "calibration_count": calibration_count,
                             **{part: content.get(part) for part in ("documents", "queries", "qrels")}})


@dataclass(frozen=True)
class Entry:
    position: int
    digest: str
    value: dict[str, Any]

    @property
    def configuration(self) -> tuple[Any, Any, Any]:
        return self.value.get("system"), self.value.get("configuration_sha256"), self.value.get("store_sha256")

    def describe(self) -> str:
        v = self.value
        return (f"look {self.position}: {v.get('system')} configuration {v.get('configuration_sha256')} on store "
                f"{v.get('store_sha256')} ({v.get('store_directory')}), {v.get('mode')} {v.get('split')}, "
                f"{v.get('recorded_at')}")


@dataclass(frozen=True)
class Record:
    path: Path
    record_id: str | None
    entries: list[Entry]
    problem: str | None  # the chain's first problem, if any

    def before(self, position: int, dataset_sha256: Any, fixture_sha256: Any) -> list[Entry]:
        """The looks at the dataset before `position` (an entry naming no dataset: a look at the very fixture)."""
        return [e for e in self.entries if e.position < position and (
            e.value["dataset_sha256"] == dataset_sha256 if "dataset_sha256" in e.value
            else e.value.get("fixture_sha256") == fixture_sha256)]


def this_machines_record() -> Path:
    """Where this machine keeps the record, by the validator's own rule (the variable of whoever validates, else
    the user's cache directory); never a path a receipt names."""
    named = os.environ.get(RECORD_VARIABLE)
    if named:
        return Path(named).expanduser().absolute()
    cache = os.environ.get("XDG_CACHE_HOME")
    base = Path(cache) if cache and Path(cache).is_absolute() else Path.home() / ".cache"
    return base / "scifact-harness" / RECORD_NAME


def _entry(text: Any) -> dict[str, Any] | None:
    try:
        value = loads(text) if isinstance(text, str) else None
    except StrictJSONError:
        return None
    fields = next((f for f in (ENTRY_FIELDS, LEGACY_FIELDS) if isinstance(value, dict) and set(value) == set(f)), None)
    if fields is None or not isinstance(value, dict):
        return None
    entry: dict[str, Any] = value
    if not all(isinstance(entry[k], t) for k, t in fields.items()) or canonical(entry).decode() != text:
        return None
    return entry


def _rows(path: Path, through: int) -> tuple[Any, list[Any]]:
    connection = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        row = connection.execute("SELECT value FROM meta WHERE key = 'record_id'").fetchone()
        rows = connection.execute("SELECT position, entry, previous_digest, digest FROM looks WHERE position <= ? "
                                  "ORDER BY position", (through,)).fetchall()
    finally:
        connection.close()
    return row, rows


def rows_digest(path: str, through: int) -> str | None:
    """The digest of the record's id and its rows up to position `through`: what a verdict on the run at that
    position read of the record (later rows leave it standing); None when it cannot be read."""
    try:
        row, rows = _rows(Path(path), through)
    except (sqlite3.Error, OSError):
        return None
    return sha256_canonical({"record_id": None if row is None else row[0], "rows": [list(r) for r in rows]})


def read_record(path: Path, through: int = 2**62) -> Record:
    """The record at `path`, its rows up to position `through` (sqlite3.Error when it cannot be read as one)."""
    row, rows = _rows(path, through)
    entries, problem, previous = [], None, GENESIS
    for due, (position, text, recorded_previous, digest) in enumerate(rows, start=1):
        if problem is None:
            if position != due:
                problem = f"position {position!r} where {due} is due (positions count from 1 without gaps)"
            elif recorded_previous != previous or not isinstance(text, str) or chain_digest(previous, text) != digest:
                problem = f"position {due}: the digest does not recompute from the entry before it and the entry text"
            elif _entry(text) is None:
                problem = (f"position {due}: not an entry in canonical JSON with exactly its fields, each of its "
                           f"type: {text!r}")
        value = _entry(text)
        if value is not None and isinstance(position, int):
            entries.append(Entry(position, str(digest), value))
        previous = digest if isinstance(digest, str) else ""
    return Record(path, str(row[0]) if row else None, entries, problem)
