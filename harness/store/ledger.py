"""The run ledger: a SQLite file beside the store that hands out run numbers and request ids.

Request ids are `<namespace>/<mode>/<split>/run-<n>/<query_id>`, where n counts the runs of that mode
and split on this store. They are deterministic for a given run, and the primary key makes a
collision with any earlier run on the store an error rather than a silent overwrite. The ledger lives
outside the fact database, so recording a run never changes the store's digest.
"""

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from .locking import store_lock

LEDGER = "ledger.sqlite3"
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
"""


@dataclass(frozen=True)
class RunTicket:
    run_id: str
    sequence: int
    request_ids: dict[str, str]  # query id -> request id


def _connect(store_dir: Path) -> sqlite3.Connection:
    # Switching a new file to WAL takes an exclusive lock that SQLite does not wait for: workers starting
    # their first runs together would fail with 'database is locked'. The set-up is serialized instead,
    # and a file already in WAL mode is only read, never switched again under another process's write.
    with store_lock(store_dir, exclusive=True):
        connection = sqlite3.connect(store_dir / LEDGER, isolation_level=None, timeout=30.0)
        try:
            if connection.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                connection.execute("PRAGMA journal_mode=WAL")
            connection.executescript(SCHEMA)
        except BaseException:
            connection.close()
            raise
    connection.execute("PRAGMA synchronous=FULL")
    return connection


def begin_run(store_dir: Path, namespace: str, mode: str, split: str, query_ids: list[str],
              started_at: str) -> RunTicket:
    connection = _connect(store_dir)
    try:
        with connection:
            connection.execute("BEGIN IMMEDIATE")
            (last,) = connection.execute(
                "SELECT COALESCE(MAX(sequence), 0) FROM runs WHERE mode = ? AND split = ?", (mode, split)
            ).fetchone()
            sequence = int(last) + 1
            run_id = f"{namespace}/{mode}/{split}/run-{sequence}"
            connection.execute("INSERT INTO runs (run_id, mode, split, sequence, started_at, status) "
                               "VALUES (?, ?, ?, ?, ?, 'running')", (run_id, mode, split, sequence, started_at))
            request_ids = {query_id: f"{run_id}/{query_id}" for query_id in query_ids}
            connection.executemany("INSERT INTO requests (request_id, run_id, query_id) VALUES (?, ?, ?)",
                                   [(request_id, run_id, qid) for qid, request_id in request_ids.items()])
    finally:
        connection.close()
    return RunTicket(run_id, sequence, request_ids)


def finish_run(store_dir: Path, run_id: str, status: str, finished_at: str) -> None:
    connection = _connect(store_dir)
    try:
        with connection:
            connection.execute("UPDATE runs SET status = ?, finished_at = ? WHERE run_id = ?",
                               (status, finished_at, run_id))
    finally:
        connection.close()
