"""The store's run ledger as the validator reads it: the file opened read-only, its hash chain recomputed event by
event, and the runs table compared with the history. The rules are in check_history's docstring."""

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.digests import canonical, sha256_bytes
from ..core.strict_json import StrictJSONError, loads

LEDGER = "ledger.sqlite3"
GENESIS = "sha256:" + "0" * 64
HELD_OUT = ("heldout", "all")
EVENT_FIELDS: dict[str, dict[str, type]] = {
    "run-started": {"event": str, "run_id": str, "mode": str, "split": str, "sequence": int, "started_at": str,
                    "source_sha256": str},
    "run-finished": {"event": str, "run_id": str, "status": str, "finished_at": str},
    "freeze": {"event": str, "freeze_sha256": str, "modes": list, "created_at": str, "output_dir": str},
    "sweep-configuration": {"event": str, "sweep_sha256": str, "configuration": dict, "configuration_sha256": str,
                            "mode": str, "split": str, "selected_ids_sha256": str, "per_query_sha256": str,
                            "scores": dict, "recorded_at": str},
}
# fields an event of that type may lack: a run-started event written before the configuration digest was recorded
OPTIONAL_FIELDS: dict[str, dict[str, type]] = {"run-started": {"configuration_sha256": str}}


@dataclass(frozen=True)
class Row:
    position: Any
    text: Any
    previous: Any
    digest: Any


@dataclass(frozen=True)
class Event:
    position: int
    digest: str
    value: dict[str, Any]

    @property
    def kind(self) -> Any:
        return self.value.get("event")

    def describe(self) -> str:
        if self.kind == "freeze":
            return f"freeze {self.value.get('freeze_sha256')} (position {self.position})"
        return (f"{self.value.get('split')} run {self.value.get('run_id')} (position {self.position}, started "
                f"{self.value.get('started_at')})")


@dataclass(frozen=True)
class Ledger:
    rows: list[Row]
    runs: list[tuple[Any, ...]]


def chain_digest(previous_digest: str, event_json: str) -> str:
    return sha256_bytes(f"{previous_digest}\n{event_json}".encode())


def read_ledger(path: Path) -> Ledger:
    connection = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        rows = [Row(*row) for row in connection.execute(
            "SELECT position, event, previous_digest, digest FROM history ORDER BY position")]
        runs = connection.execute("SELECT run_id, mode, split, sequence, started_at, status, finished_at FROM runs "
                                  "ORDER BY rowid").fetchall()
    finally:
        connection.close()
    return Ledger(rows, runs)


def _event(text: Any) -> dict[str, Any] | None:
    """The event, if the text is strict JSON with one event type's exact fields, each of its type."""
    try:
        value = loads(text) if isinstance(text, str) else None
    except StrictJSONError:
        return None
    if not isinstance(value, dict):
        return None
    event: dict[str, Any] = value
    kind = str(event.get("event"))
    fields, optional = EVENT_FIELDS.get(kind), OPTIONAL_FIELDS.get(kind, {})
    if fields is None or not set(fields) <= set(event) <= set(fields) | set(optional):
        return None
    typed = {**fields, **{k: t for k, t in optional.items() if k in event}}
    if any(not isinstance(event[k], t) or isinstance(event[k], bool) for k, t in typed.items()):
        return None
    return event


def _row_problem(row: Row, position: int, previous: str) -> str | None:
    if row.position != position:
        return f"position {row.position!r} where {position} is due (positions count from 1 without gaps)"
    if not isinstance(row.text, str) or not isinstance(row.digest, str):
        return f"position {position}: the event or digest is not text"
    if row.previous != previous:
        return f"position {position}: previous digest {row.previous!r}, but the event before has {previous}"
    if chain_digest(previous, row.text) != row.digest:
        return (f"position {position}: digest {row.digest} does not recompute from the previous digest and the "
                f"event text {row.text} (recomputed {chain_digest(previous, row.text)}): the event was edited")
    try:
        loads(row.text)
    except StrictJSONError as exc:
        return f"position {position}: the event is not strict JSON ({exc})"
    value = _event(row.text)
    if value is None:
        return (f"position {position}: not a run-started, run-finished, freeze or sweep-configuration event with its "
                f"fields and their types: {row.text}")
    if canonical(value).decode("utf-8") != row.text:
        return f"position {position}: the event is not in canonical JSON: {row.text}"
    return None


def chain(ledger: Ledger) -> tuple[list[Event], str | None]:
    """Every event that parses (whether or not its digest recomputes), and the chain's first problem, if any."""
    events, problem, previous = [], None, GENESIS
    for position, row in enumerate(ledger.rows, start=1):
        problem = problem or _row_problem(row, position, previous)
        value = _event(row.text)
        if value is not None and isinstance(row.position, int):
            events.append(Event(row.position, str(row.digest), value))
        previous = row.digest if isinstance(row.digest, str) else ""
    return events, problem


def runs_problem(ledger: Ledger, events: list[Event]) -> str | None:
    """The runs table and the history record the same runs, with the same last status."""
    from_history: dict[Any, list[Any]] = {}
    for event in events:
        if event.kind == "run-started":
            value = event.value
            from_history[value["run_id"]] = [value["run_id"], value["mode"], value["split"], value["sequence"],
                                             value["started_at"], "running", None]
        elif event.kind == "run-finished" and event.value["run_id"] in from_history:
            from_history[event.value["run_id"]][5:] = [event.value["status"], event.value["finished_at"]]
    from_table = {run[0]: list(run) for run in ledger.runs}
    for run_id in [*from_table, *(r for r in from_history if r not in from_table)]:
        if from_table.get(run_id) != from_history.get(run_id):
            return (f"run {run_id}: the runs table holds {from_table.get(run_id)}, the history "
                    f"{from_history.get(run_id)}")
    return None
