"""The SQLite fact database. Facts carry title, text and vector; the store generates fact ids.

BEIR ids never enter this database: a fact knows only its ordinal in the fixture it came from, and
the mapping sidecar pairs BEIR ids with fact ids.
"""

import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS facts (
    fact_id INTEGER PRIMARY KEY AUTOINCREMENT,
    namespace TEXT NOT NULL,
    ordinal INTEGER NOT NULL UNIQUE,
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    dims INTEGER NOT NULL,
    vector BLOB NOT NULL
);
"""
BATCH = 512


def connect(path: Path, *, read_only: bool = False) -> sqlite3.Connection:
    """`read_only` opens a finished, checkpointed database as immutable: reading it touches no file at all."""
    if read_only:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True, isolation_level=None)
    else:
        connection = sqlite3.connect(path, isolation_level=None)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=FULL")
    connection.execute("PRAGMA busy_timeout=30000")
    return connection


def create(connection: sqlite3.Connection, meta: dict[str, str]) -> None:
    connection.executescript(SCHEMA)
    with connection:
        connection.execute("BEGIN IMMEDIATE")
        connection.executemany("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", sorted(meta.items()))


def read_meta(connection: sqlite3.Connection) -> dict[str, str]:
    return dict(connection.execute("SELECT key, value FROM meta").fetchall())


def inserted_ordinals(connection: sqlite3.Connection) -> set[int]:
    return {row[0] for row in connection.execute("SELECT ordinal FROM facts")}


def insert_facts(connection: sqlite3.Connection, namespace: str,
                 rows: Iterable[tuple[int, str, str, NDArray[np.float32]]]) -> None:
    """Insert (ordinal, title, text, vector) rows, committing every BATCH rows so an interrupted
    build keeps what it committed and resumes after it."""
    batch: list[tuple[str, int, str, str, int, bytes]] = []
    for ordinal, title, body, vector in rows:
        batch.append((namespace, ordinal, title, body, int(vector.shape[0]), np.asarray(vector, "<f4").tobytes()))
        if len(batch) == BATCH:
            _commit(connection, batch)
            batch = []
    if batch:
        _commit(connection, batch)


def _commit(connection: sqlite3.Connection, batch: list[tuple[str, int, str, str, int, bytes]]) -> None:
    with connection:
        connection.execute("BEGIN IMMEDIATE")
        connection.executemany(
            "INSERT INTO facts (namespace, ordinal, title, body, dims, vector) VALUES (?, ?, ?, ?, ?, ?)", batch
        )


Fact = tuple[int, int, str, str, int, bytes]
READ_CHUNK = 4096


def ordinals(connection: sqlite3.Connection) -> list[int]:
    """Every fact's ordinal, in fact-id order."""
    return [row[0] for row in connection.execute("SELECT ordinal FROM facts ORDER BY fact_id")]


def facts_in_chunks(connection: sqlite3.Connection) -> Iterator[list[Fact]]:
    """(fact_id, ordinal, title, body, dims, vector) in fact-id order, READ_CHUNK at a time: a store of any size is
    read without holding it whole."""
    cursor = connection.execute("SELECT fact_id, ordinal, title, body, dims, vector FROM facts ORDER BY fact_id")
    while chunk := cursor.fetchmany(READ_CHUNK):
        yield chunk


def checkpoint(connection: sqlite3.Connection) -> None:
    """Fold the WAL into the database file, so the file alone holds the store and hashes stably."""
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
