"""A held-out look, checked against the per-user held-out record when that record is on this machine.

Every held-out and all-query run of a claim-profile fixture appends an entry to the record of the user who ran it
before its first query is searched (SQLite: table `meta` with the record's random `record_id`, table `looks` with
position, entry, previous_digest, digest, chained as the run ledger's history is). The receipt's `heldout_looks`
names the record (path, record id, host, machine id), the dataset (name and key), the entry (position, digest) and
what the record held before it for the same dataset: `looks_before`, `earlier_looks_at` (when each was recorded) and
`other_configurations_before`, the distinct (system, configuration digest, store digest) among them other than the
run's own. Looks are counted per dataset, never per fixture bytes: the validator derives the dataset key by its own
rule (looks_record.dataset_key) from its own pins of the receipt's dataset, held to the receipt's payload hashes (a
receipt whose payload is not the pinned one is keyed by its own payload hashes, and fails corpus.pinned besides).

The validator finds the record by its own rule ($SCIFACT_HELDOUT_RECORD of whoever validates, else
$XDG_CACHE_HOME/scifact-harness/heldout-looks.sqlite3, else ~/.cache/scifact-harness/heldout-looks.sqlite3),
never by the path a receipt names. The record is on this machine when that file carries the receipt's record id;
then `heldout.record` passes only when the chain recomputes up to the receipt's entry, that entry has the receipt's
digest and fields (dataset, fixture, split, mode, system, configuration digest, store digest, freeze, run id, host,
machine id), and the counts and times recompute from the entries before it: a receipt claiming the first look while
the record shows earlier looks at this dataset's held-out split fails. Entries after the receipt's are not read, so
a later run leaves this verdict standing. "This machine" is decided by the machine id (machine.py), never the host
name. When the record found here is not the one the run wrote (none at all, another record id, or unreadable: a
reader's own cache, a record of another name, or one removed or replaced, which the validator cannot tell apart), the
looks are attested in the run's words, not verifiable here, never a FAIL: the record is the publisher's to keep, so
its absence here proves nothing either way. A
receipt from another machine (or naming no machine id) leaves the counts to the attestation `heldout.looks`.
"""

import sqlite3
from typing import Any

from ..core.context import Context
from ..core.reading import is_file, note_rows
from ..core.report import Report
from ..dataset.pins import pins_for
from .looks_record import RECORD_VARIABLE, Record, dataset_key, read_record, this_machines_record
from .machine import this_machine

NAME = "heldout.record"
KEPT = ("the record is kept by the user who ran the evaluation; whoever can write it can rewrite it, so it is a second "
        "witness beside the store's run ledger, not proof")


def dataset_of(receipt: dict[str, Any]) -> tuple[str, str]:
    """(name, key) of the receipt's dataset by the validator's rule: from its own pins when the receipt's payload
    hashes are the pinned content, else from the receipt's own payload hashes and contract."""
    corpus = receipt["corpus"]
    pins = pins_for(corpus["contract"].get("name"))
    payload = corpus["payload_hashes"]
    pinned = pins.content_sha256 if pins is not None else {}  # empty for a dataset pinned by its archive alone
    if pins is not None and pinned and all(payload.get(k) == pinned.get(k) for k in ("documents", "queries", "qrels")):
        name = pins.ir_datasets_id or pins.dataset
        return name, dataset_key(name, pins.content_sha256, pins.contract["calibration_count"])
    name = corpus.get("ir_datasets_id") or corpus["contract"].get("name")
    return str(name), dataset_key(name, payload, corpus["contract"].get("calibration_count"))


def _expected_entry(ctx: Context, block: dict[str, Any]) -> dict[str, Any]:
    receipt = ctx.receipt
    name, key = dataset_of(receipt)
    return {"dataset": name, "dataset_sha256": key, "fixture_sha256": receipt["corpus"]["fixture_sha256"],
            "split": ctx.split, "mode": ctx.mode,
            "system": receipt["system"]["name"], "configuration_sha256": receipt["system"]["configuration_sha256"],
            "store_sha256": receipt["store"].get("store_sha256"),
            "freeze_sha256": (receipt["freeze"] or {}).get("sha256"),
            "run_id": receipt["run"]["run_id"], "host": block["host"], "machine_id": block["machine_id"]}


def _problems(ctx: Context, block: dict[str, Any], record: Record) -> list[str]:
    position, digest = block["entry"]["position"], block["entry"]["digest"]
    problems = [f"the record's chain does not recompute: {record.problem}"] if record.problem else []
    entry = next((e for e in record.entries if e.position == position), None)
    if entry is None:
        return [*problems, f"the record holds no entry at position {position} ({len(record.entries)} entries)"]
    if entry.digest != digest:
        problems.append(f"the entry at position {position} has digest {entry.digest}, the receipt {digest}")
    expected = _expected_entry(ctx, block)
    differing = sorted(k for k, v in expected.items() if entry.value.get(k) != v)
    if differing:
        problems.append(f"the entry at position {position} is another run's: it differs from the receipt in "
                        f"{', '.join(differing)} ({ {k: entry.value.get(k) for k in differing} })")
    earlier = record.before(position, expected["dataset_sha256"], expected["fixture_sha256"])
    own = (expected["system"], expected["configuration_sha256"], expected["store_sha256"])
    others = [e for e in earlier if e.configuration != own]
    counted = (len(earlier), len({e.configuration for e in others}))
    stated = (block["looks_before"], block["other_configurations_before"])
    times = [e.value["recorded_at"] for e in earlier]
    if block["earlier_looks_at"] != times:
        problems.append(f"the receipt dates the earlier looks {block['earlier_looks_at']}; the record {times}")
    if counted != stated:
        shown = f"; the first other: {others[0].describe()}" if others else ""
        said = f"{_count(stated[0], 'earlier look')} by {_count(stated[1], 'other configuration')}"
        problems.append(f"the receipt says {said}; the record shows {counted[0]} by {counted[1]} before position "
                        f"{position}{shown}")
    return problems


def _count(number: int, word: str) -> str:
    return f"{number} {word}{'' if number == 1 else 's'}"


def _stated(block: dict[str, Any]) -> str:
    return (f"{_count(block['looks_before'], 'earlier look')} at {block['dataset']['name']}'s held-out split by "
            f"{_count(block['other_configurations_before'], 'other configuration')}")


def check_looks(ctx: Context, report: Report) -> None:
    block = ctx.receipt.get("heldout_looks")
    if ctx.split == "calibration" or ctx.receipt["profile"].get("is_contract") is not True:
        report.expect(NAME, block is None, "a calibration or parity run looks at no held-out split of a claim and "
                      "has no entry in the held-out record", None, block)
        return
    if block is None:
        report.fail(NAME, f"a {ctx.split} receipt names its entry in the per-user held-out record, written before "
                    "its first query", "an entry", None)
        return
    here, position = this_machines_record(), block["entry"]["position"]
    record, unreadable = None, None
    if is_file(here):
        try:
            record = read_record(here, position)
        except sqlite3.Error as exc:
            unreadable = f"unreadable ({type(exc).__name__}: {exc})"
    if record is not None and record.record_id == block["record_id"]:
        note_rows(here, position)  # this verdict read the rows up to its entry, not the file's later bytes
        problems = _problems(ctx, block, record)
        detail = (f"the receipt's look is entry {position} of this machine's held-out record "
                  f"{here}, with its digest and fields, after {_stated(block)}, as the record counts them")
        report.expect(NAME, not problems, detail + (": " + "; ".join(problems) if problems else ""), block, problems)
        report.attest("heldout.looks", f"this machine's record {here} counts {_stated(block)} before this run; "
                      f"{KEPT}")
        return
    name, key = dataset_of(ctx.receipt)
    if (block["dataset"]["name"], block["dataset"]["sha256"]) != (name, key):
        report.fail(NAME, "the receipt names its dataset by the validator's own rule (its pins, held to the "
                    "receipt's payload hashes): the looks are counted per dataset", [name, key],
                    [block["dataset"]["name"], block["dataset"]["sha256"]])
    mine = this_machine()
    elsewhere = _looks_elsewhere(ctx, record, key)
    if mine is not None and block["machine_id"] == mine:
        found = ("no held-out record here (a cache of the validating user's own, or a record removed)"
                 if not is_file(here) else
                 f"the record here is {unreadable or 'another: record id ' + str(record.record_id if record else None)}"
                 " (a record of another name, or this one replaced)")
        report.attest("heldout.looks", f"the receipt states {_stated(block)} in the record {block['record_id']}, "
                      f"written on this machine ({block['host']}, machine id {mine}) at {block['record']}; {here}: "
                      f"{found}, so the looks are not verifiable here: attested, in the run's words; validate with "
                      f"{RECORD_VARIABLE} naming the record the run wrote to check them; {KEPT}{elsewhere}")
        return
    report.attest("heldout.looks", f"the receipt states {_stated(block)} in the record {block['record_id']} on "
                  f"{block['host']} (machine id {block['machine_id']}), not this machine ({mine}): attested, a record "
                  f"on the machine that ran it, not verifiable here; {KEPT}{elsewhere}")


def _looks_elsewhere(ctx: Context, record: Record | None, key: str) -> str:
    """What another record found here (the validating user's own) holds of the same dataset's held-out split before
    the run started, in words; empty when it holds none. The run's record does not count those looks: said, so a
    reader who looked (or a publisher who looked under another record) sees it."""
    if record is None:
        return ""
    started = str(ctx.receipt["run"].get("started_at"))
    earlier = [e for e in record.entries if e.value.get("dataset_sha256") == key
               and str(e.value.get("recorded_at")) < started]
    if not earlier:
        return ""
    configurations = len({e.configuration for e in earlier})
    return (f"; BUT the held-out record found here, {record.path} (record id {record.record_id}, not the run's), "
            f"holds {_count(len(earlier), 'look')} at this dataset's held-out split recorded before the run started "
            f"({started}), by {_count(configurations, 'configuration')}, the first {earlier[0].describe()}: looks "
            "the run's record does not count")
