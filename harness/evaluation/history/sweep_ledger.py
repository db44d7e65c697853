"""A sweep's events in the store's run ledger: one `sweep-configuration` event per configuration and mode, all of a
sweep appended in one transaction, chained as every event is (ledger.py's rule):

    {"event": "sweep-configuration", "sweep_sha256", "configuration" (the grid's parameters of it),
     "configuration_sha256" (the full configuration's digest, as receipts record it), "mode", "split": "calibration",
     "selected_ids_sha256", "per_query_sha256", "scores" (the default metrics' means), "recorded_at"}

A sweep is refused once any held-out or all-query run has started on the store, as the freeze is: a configuration
chosen after held-out results were seen could have been chosen from them.
"""

import sqlite3
from pathlib import Path
from typing import Any

from harness.evaluation.history.ledger import LEDGER, NEW_STORE, EventRef, HistoryError, _append, _first_run, _label
from harness.evaluation.history.ledger_db import reading, transaction

SWEEP_EVENT = "sweep-configuration"
FIELDS = ("sweep_sha256", "configuration", "configuration_sha256", "mode", "split", "selected_ids_sha256",
          "per_query_sha256", "scores", "recorded_at")


def _refuse_after_heldout(connection: sqlite3.Connection, store_dir: Path) -> None:
    earlier = _first_run(connection, "split IN (?, ?)", ("heldout", "all"))
    if earlier is not None:
        run_id, split, started_at = earlier
        raise HistoryError(
            f"the sweep is refused: {_label(split)} run {run_id} was started on this store at {started_at} (run "
            f"ledger {store_dir / LEDGER}), and a configuration chosen after held-out results have been seen could "
            f"have been chosen from them. {NEW_STORE}")


def check_sweep_turn(store_dir: Path) -> None:
    """Refuse a sweep on a store whose history holds a held-out or all-query run, before any work."""
    reading(store_dir, lambda connection: _refuse_after_heldout(connection, store_dir))


def record_sweep(store_dir: Path, events: list[dict[str, Any]]) -> list[EventRef]:
    """Append every event of one sweep in one transaction (all of them, or none), after the same gate."""
    for event in events:
        if sorted(event) != sorted(FIELDS) or event["split"] != "calibration":
            raise ValueError(f"a sweep event has the fields {sorted(FIELDS)} and split calibration, not {event}")

    def body(connection: sqlite3.Connection) -> list[EventRef]:
        _refuse_after_heldout(connection, store_dir)
        return [_append(connection, {"event": SWEEP_EVENT, **event}) for event in events]
    return transaction(store_dir, body)
