"""The per-user held-out record as the validator reads it: found where this machine keeps it, opened read-only, its
hash chain recomputed entry by entry. The rules are in check_looks's docstring."""

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.digests import canonical
from ..core.strict_json import StrictJSONError, loads
from .ledger_chain import GENESIS, chain_digest

RECORD_VARIABLE = "SCIFACT_HELDOUT_RECORD"
RECORD_NAME = "heldout-looks.sqlite3"
ENTRY_FIELDS = {"fixture_sha256": str, "split": str, "mode": str, "system": str, "configuration_sha256": str,
                "store_sha256": str, "store_directory": str, "freeze_sha256": str, "recorded_at": str, "host": str,
                "run_id": str}


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

    def before(self, position: int, fixture_sha256: Any) -> list[Entry]:
        return [e for e in self.entries if e.position < position and e.value.get("fixture_sha256") == fixture_sha256]

    def of_fixture(self, fixture_sha256: Any) -> list[Entry]:
        return [e for e in self.entries if e.value.get("fixture_sha256") == fixture_sha256]


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
    if not isinstance(value, dict) or set(value) != set(ENTRY_FIELDS):
        return None
    entry: dict[str, Any] = value
    if not all(isinstance(entry[k], t) for k, t in ENTRY_FIELDS.items()) or canonical(entry).decode() != text:
        return None
    return entry


def read_record(path: Path) -> Record:
    """The record at `path` (sqlite3.Error when it cannot be read as one)."""
    connection = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        row = connection.execute("SELECT value FROM meta WHERE key = 'record_id'").fetchone()
        rows = connection.execute("SELECT position, entry, previous_digest, digest FROM looks "
                                  "ORDER BY position").fetchall()
    finally:
        connection.close()
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
