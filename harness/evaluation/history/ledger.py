"""The run ledger: a SQLite file beside the store that hands out run numbers and request ids and keeps the
store's history.

Request ids are `<namespace>/<mode>/<split>/run-<n>/<query_id>`, where n counts the runs of that mode
and split on this store. They are deterministic for a given run, and the primary key makes a
collision with any earlier run on the store an error rather than a silent overwrite. The ledger lives
outside the fact database, so recording a run never changes the store's digest.

The `history` table is append-only: one event per row, `position` counting from 1, appended in the same
transaction as the `runs` change it records. Events (canonical JSON, `harness.hashing.canonical_json`):

    {"event": "run-started", "run_id", "mode", "split", "sequence", "started_at", "source_sha256",
     "configuration_sha256"}
    {"event": "run-finished", "run_id", "status", "finished_at"}
    {"event": "freeze", "freeze_sha256", "modes", "created_at", "output_dir"}
    {"event": "sweep-configuration", ...}   (one per configuration and mode of a sweep: sweep_ledger.py)

A run-started event written before `configuration_sha256` was recorded (the system's configuration digest) lacks it.

Each row is chained to the one before it:

    digest = "sha256:" + hex(sha256(UTF-8 of previous_digest + "\\n" + event_json))

where previous_digest is the digest of the row before, "sha256:" + 64 zeros for position 1. Receipts
record the position and digest of their run's event and of the freeze they ran under, so a later rewrite
of the history must agree with every digest already handed out. `source_sha256` binds the harness's source state at
the run's start (the receipt's `source` block: commit, dirty flag and changed paths, or the installed distribution's
RECORD digest and changed files), so a receipt whose source block is rewritten afterwards disagrees with its event.
The ledger is evidence kept on this machine: whoever can write the store can rewrite the whole chain, so
its history is attested, not proven.

The freeze and held-out gates read this history. A freeze is refused once any held-out or all-query run
has started on the store. A held-out or all-query run needs its freeze to be the store's latest freeze
event and must be the first run of its mode and split: a held-out receipt counts only for the first
held-out run after the freeze. Both gates also read the `runs` table, so a ledger older than its history
(runs the history does not hold) is held to the same rules.
"""

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import RefusedError
from harness.evaluation.history.ledger_db import LEDGER as LEDGER
from harness.evaluation.history.ledger_db import reading, transaction
from harness.hashing import CANONICAL_JSON_RULE, canonical_json, sha256_bytes
from harness.typed_commands import harness_command

GENESIS = "sha256:" + "0" * 64
CHAIN_RULE = ('digest = "sha256:" + hex(sha256(UTF-8 of previous_digest + "\\n" + event_json)); event_json is '
              f"{CANONICAL_JSON_RULE}; previous_digest is the digest of the event at the position before, "
              '"sha256:" + 64 zeros for position 1; positions count from 1 without gaps')
HELD_OUT = ("heldout", "all")
NEW_STORE = ("To evaluate held-out again, calibrate and freeze in a new store directory (--store-dir) and a new "
             "output directory (--output-dir).")


class HistoryError(RefusedError):
    """The store's history forbids this: a freeze after held-out runs, or a held-out run out of turn."""


@dataclass(frozen=True)
class EventRef:
    position: int
    digest: str

    def to_dict(self) -> dict[str, Any]:
        return {"position": self.position, "digest": self.digest}


@dataclass(frozen=True)
class HistoryEvent:
    position: int
    digest: str
    event: dict[str, Any]

    @property
    def kind(self) -> str:
        return str(self.event.get("event"))

    @property
    def ref(self) -> EventRef:
        return EventRef(self.position, self.digest)


@dataclass(frozen=True)
class RunTicket:
    run_id: str
    sequence: int
    request_ids: dict[str, str]  # query id -> request id
    event: EventRef  # the run-started event
    freeze_event: EventRef | None  # the freeze a held-out or all-query run runs under


def chain_digest(previous_digest: str, event_json: str) -> str:
    return sha256_bytes(f"{previous_digest}\n{event_json}".encode())


def _append(connection: sqlite3.Connection, event: dict[str, Any]) -> EventRef:
    last = connection.execute("SELECT position, digest FROM history ORDER BY position DESC LIMIT 1").fetchone()
    position, previous = (int(last[0]) + 1, str(last[1])) if last else (1, GENESIS)
    text = canonical_json(event).decode("utf-8")
    digest = chain_digest(previous, text)
    connection.execute("INSERT INTO history (position, event, previous_digest, digest) VALUES (?, ?, ?, ?)",
                       (position, text, previous, digest))
    return EventRef(position, digest)


def _events(connection: sqlite3.Connection) -> list[HistoryEvent]:
    events = []
    for position, text, digest in connection.execute("SELECT position, event, digest FROM history ORDER BY position"):
        try:
            event = json.loads(text)
        except ValueError:
            event = None
        if not isinstance(event, dict):
            raise HistoryError(f"the run ledger's history event at position {position} is not a JSON object: the "
                               f"history was edited and can no longer gate a freeze or a held-out run. {NEW_STORE}")
        events.append(HistoryEvent(int(position), str(digest), event))
    return events


def _label(split: str) -> str:
    return {"heldout": "held-out", "all": "all-query"}.get(split, split)


def _a(split: str) -> str:
    label = _label(split)
    return f"{'an' if label[0] in 'aeiou' else 'a'} {label}"


def _first_run(connection: sqlite3.Connection, where: str,
               parameters: tuple[str, ...]) -> tuple[str, str, str] | None:
    """The earliest run matching `where`, from the runs table, which also holds the runs of a ledger older
    than its history."""
    row = connection.execute(f"SELECT run_id, split, started_at FROM runs WHERE {where} ORDER BY rowid LIMIT 1",
                             parameters).fetchone()
    return (str(row[0]), str(row[1]), str(row[2])) if row else None


def _check_turn(connection: sqlite3.Connection, store_dir: Path, mode: str, split: str,
                freeze_sha256: str) -> EventRef:
    events = _events(connection)
    freezes = [e for e in events if e.kind == "freeze"]
    if not any(e.event.get("freeze_sha256") == freeze_sha256 for e in freezes):
        raise HistoryError(
            f"the run ledger {store_dir / LEDGER} records no freeze {freeze_sha256}: that freeze record was not "
            f"written by a freeze on this store, so it cannot gate {_a(split)} run here. Freeze with "
            f"`{harness_command('freeze')}` on this store first.")
    latest = freezes[-1]
    if latest.event.get("freeze_sha256") != freeze_sha256:
        raise HistoryError(
            f"freeze {freeze_sha256} is not the latest freeze on this store: freeze {latest.event.get('freeze_sha256')}"
            f" (ledger position {latest.position}, created {latest.event.get('created_at')}, output directory "
            f"{latest.event.get('output_dir')}) replaced it. {_label(split).capitalize()} runs run under the "
            "store's latest freeze; point --output-dir at that freeze's output directory.")
    earlier = _first_run(connection, "mode = ? AND split = ?", (mode, split))
    if earlier is not None:
        raise HistoryError(
            f"{_a(split)} run of {mode} was already started on this store ({earlier[0]}, started "
            f"{earlier[2]}): {_a(split)} receipt counts only for the first {_label(split)} run of a mode "
            f"after the freeze, so this run is refused. {NEW_STORE}")
    before = next((e for e in events if e.kind == "run-started" and e.event.get("split") in HELD_OUT
                   and e.position < latest.position), None)
    if before is not None:
        raise HistoryError(
            f"{_label(str(before.event.get('split')))} run {before.event.get('run_id')} (started "
            f"{before.event.get('started_at')}) came before freeze {freeze_sha256} in this store's history: a "
            f"freeze made after held-out results were seen cannot gate a held-out run. {NEW_STORE}")
    return latest.ref


def check_turn(store_dir: Path, mode: str, split: str, freeze_sha256: str) -> EventRef:
    """Refuse a held-out or all-query run out of turn, before anything is written; return the freeze event it
    would run under. `begin_run` repeats the check inside its transaction."""
    return reading(store_dir, lambda connection: _check_turn(connection, store_dir, mode, split, freeze_sha256))


def begin_run(store_dir: Path, namespace: str, mode: str, split: str, query_ids: list[str], started_at: str,
              *, source_sha256: str, freeze_sha256: str | None = None,
              configuration_sha256: str | None = None) -> RunTicket:
    """Number the run, record its request ids and its run-started event (with the system's configuration digest, so
    every calibration run counts among the configurations tried: trials.py). With `freeze_sha256` (a held-out or
    all-query run under a freeze), the run is refused unless it is in turn (see `check_turn`)."""
    def body(connection: sqlite3.Connection) -> RunTicket:
        freeze_event = (_check_turn(connection, store_dir, mode, split, freeze_sha256)
                        if freeze_sha256 is not None else None)
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
        started = {"event": "run-started", "run_id": run_id, "mode": mode, "split": split, "sequence": sequence,
                   "started_at": started_at, "source_sha256": source_sha256}
        configured = {} if configuration_sha256 is None else {"configuration_sha256": configuration_sha256}
        event = _append(connection, {**started, **configured})
        return RunTicket(run_id, sequence, request_ids, event, freeze_event)
    return transaction(store_dir, body)


def finish_run(store_dir: Path, run_id: str, status: str, finished_at: str) -> EventRef:
    def body(connection: sqlite3.Connection) -> EventRef:
        connection.execute("UPDATE runs SET status = ?, finished_at = ? WHERE run_id = ?",
                           (status, finished_at, run_id))
        return _append(connection, {"event": "run-finished", "run_id": run_id, "status": status,
                                    "finished_at": finished_at})
    return transaction(store_dir, body)


def record_freeze(store_dir: Path, *, freeze_sha256: str, modes: list[str], created_at: str,
                  output_dir: str, through_position: int | None = None) -> EventRef:
    """Append the freeze event, or refuse if any held-out or all-query run was ever started on this store, or if the
    history grew past `through_position` (the last event the freeze record counted) since it was read."""
    def body(connection: sqlite3.Connection) -> EventRef:
        (last,) = connection.execute("SELECT COALESCE(MAX(position), 0) FROM history").fetchone()
        if through_position is not None and int(last) != through_position:
            raise HistoryError(
                f"the run ledger {store_dir / LEDGER} gained events after the freeze counted the configurations tried "
                f"on calibration (through position {through_position}, now {last}): a run or sweep on this store "
                "ended meanwhile. Freeze again once it has finished.")
        earlier = _first_run(connection, "split IN (?, ?)", HELD_OUT)
        if earlier is not None:
            run_id, split, started_at = earlier
            raise HistoryError(
                f"the freeze is refused: {_label(split)} run {run_id} was started on this store at {started_at} "
                f"(run ledger {store_dir / LEDGER}), and a configuration frozen after held-out results have been "
                "seen could have been chosen from them. Deleted receipts and --replace do not change that. "
                f"{NEW_STORE}")
        return _append(connection, {"event": "freeze", "freeze_sha256": freeze_sha256, "modes": modes,
                                    "created_at": created_at, "output_dir": output_dir})
    return transaction(store_dir, body)


def history(store_dir: Path) -> list[HistoryEvent]:
    return reading(store_dir, _events)
