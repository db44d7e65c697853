"""How many configurations saw a dataset's held-out split, in words for CLAIMS.md and the report.

Read from this machine's per-user held-out record when it is the record the runs wrote (its id is the receipts'),
counting every look at the dataset (whatever fixture build) up to now; else the numbers the receipts state about
the record on the machine
that ran them, as of the last of these runs, and said to be attested.
"""

from typing import Any

from harness.evaluation.history.heldout_record import read_record

RUN = "held-out or all-query run"
WITNESS = ("The record is kept by the user who ran the evaluation, outside every store: whoever can write it can "
           "rewrite it, so these counts are attested, a second witness beside each store's run ledger.")


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def looks_statement(aggregates: list[dict[str, Any]]) -> str | None:
    """One paragraph for the held-out and all-query receipts among `aggregates`; None when there are none."""
    blocks = [a["receipt"]["heldout_looks"] for a in aggregates if a["receipt"].get("heldout_looks") is not None]
    if not blocks:
        return None
    fixture = next(a["receipt"]["corpus"]["fixture_sha256"] for a in aggregates
                   if a["receipt"].get("heldout_looks") is not None)
    named = next((b["dataset"] for b in blocks if b.get("dataset")), {"name": "this fixture", "sha256": ""})
    record = read_record()
    if record is not None and record.record_id in {b["record_id"] for b in blocks}:
        looks, configurations = record.dataset_looks(named["sha256"], fixture)
        return (f"Held-out looks: {_plural(configurations, 'configuration')} (system, configuration digest, store "
                f"digest) saw {named['name']}'s held-out split on this machine, whatever fixture build they ran, in "
                f"{_plural(looks, RUN)} in all: read now from this machine's held-out record (id "
                f"{record.record_id}), the record these runs wrote. " + WITNESS)
    last = max(blocks, key=lambda b: (b["record_id"], b["entry"]["position"]))
    configurations = last["other_configurations_before"] + 1
    return (f"Held-out looks: by the last of these runs, {_plural(configurations, 'configuration')} (this one "
            f"included) had seen {named['name']}'s held-out split on {last['host']}, in "
            f"{_plural(last['looks_before'] + 1, RUN)}: attested: a record on the machine that "
            f"ran it (id {last['record_id']}), not on this machine, so these are the receipts' "
            "numbers. " + WITNESS)
