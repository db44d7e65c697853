"""The run ledger's SQLite file: connecting, one write transaction at a time, and what a damaged file means.

A ledger that is not the SQLite file the harness writes (garbage, a table of another shape, a value of
another type) ends in LedgerError, naming the file; it holds the store's history, so the harness never
replaces it. A ledger kept locked past SQLite's busy timeout ends in LockTimeout.
"""

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from harness.errors import HarnessError, LockTimeout
from harness.locks import store_lock

LEDGER = "ledger.sqlite3"
BUSY_TIMEOUT_SECONDS = 30.0
T = TypeVar("T")
SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    mode TEXT NOT NULL,
    split TEXT NOT NULL,
    sequence INTEGER NOT NULL,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    status TEXT NOT NULL,
    UNIQUE (mode, split, sequence)
);
CREATE TABLE IF NOT EXISTS requests (
    request_id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs (run_id),
    query_id TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS history (
    position INTEGER PRIMARY KEY,
    event TEXT NOT NULL,
    previous_digest TEXT NOT NULL,
    digest TEXT NOT NULL UNIQUE
);
CREATE TRIGGER IF NOT EXISTS history_no_update BEFORE UPDATE ON history
BEGIN SELECT RAISE(ABORT, 'the history is append-only'); END;
CREATE TRIGGER IF NOT EXISTS history_no_delete BEFORE DELETE ON history
BEGIN SELECT RAISE(ABORT, 'the history is append-only'); END;
"""


class LedgerError(HarnessError):
    """The run ledger cannot be read as the harness writes it."""


@contextmanager
def ledger_errors(store_dir: Path) -> Iterator[None]:
    """Turn what a damaged or busy ledger raises into an error that names the file and the way out."""
    path = store_dir / LEDGER
    try:
        yield
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            raise LockTimeout(f"the run ledger {path} stayed locked by another process for "
                              f"{BUSY_TIMEOUT_SECONDS:g} s ({exc}); let it finish, then rerun") from exc
        raise _damaged(path, exc) from exc
    except (sqlite3.DatabaseError, ValueError, TypeError, KeyError, IndexError) as exc:
        raise _damaged(path, exc) from exc


def _damaged(path: Path, exc: Exception) -> LedgerError:
    return LedgerError(
        f"the run ledger {path} is not the SQLite file the harness writes ({type(exc).__name__}: {exc}). It holds "
        "this store's history, so it is never replaced: restore it from a copy, or calibrate and freeze in a new "
        "--store-dir.")


def connect(store_dir: Path) -> sqlite3.Connection:
    # Switching a new file to WAL takes an exclusive lock that SQLite does not wait for: workers starting
    # their first runs together would fail with 'database is locked'. The set-up is serialized instead,
    # and a file already in WAL mode is only read, never switched again under another process's write.
    with store_lock(store_dir, exclusive=True):
        connection = sqlite3.connect(store_dir / LEDGER, isolation_level=None, timeout=BUSY_TIMEOUT_SECONDS)
        try:
            if connection.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                connection.execute("PRAGMA journal_mode=WAL")
            connection.executescript(SCHEMA)
        except BaseException:
            connection.close()
            raise
    connection.execute("PRAGMA synchronous=FULL")
    return connection


def transaction(store_dir: Path, body: Callable[[sqlite3.Connection], T]) -> T:
    """Run `body` in one write transaction (BEGIN IMMEDIATE): all of it is recorded, or none of it."""
    with ledger_errors(store_dir):
        connection = connect(store_dir)
        try:
            with connection:
                connection.execute("BEGIN IMMEDIATE")
                return body(connection)
        finally:
            connection.close()


def reading(store_dir: Path, body: Callable[[sqlite3.Connection], T]) -> T:
    """Run `body` on a connection outside any transaction of ours."""
    with ledger_errors(store_dir):
        connection = connect(store_dir)
        try:
            return body(connection)
        finally:
            connection.close()
