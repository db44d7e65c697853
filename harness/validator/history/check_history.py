"""The store's run ledger, read by the validator itself: the hash chain, this run's place in it, and the freeze
a held-out or all-query run ran under.

The ledger is `ledger.sqlite3` beside the store, opened read-only (a `file:...?mode=ro` URI). Its `history`
table holds one event per row: position (from 1, without gaps), the event as canonical JSON (its type under
"event"), the previous row's digest and this row's digest, chained by

    digest = "sha256:" + hex(sha256(UTF-8 of previous_digest + "\\n" + event_json))

with previous_digest "sha256:" + 64 zeros for position 1. Events: run-started {run_id, mode, split,
sequence, started_at, source_sha256: the sha256 of the receipt's source block in canonical JSON, bound at the
start, configuration_sha256: the system's configuration digest, absent from events written before it was recorded},
run-finished {run_id, status, finished_at}, freeze {freeze_sha256, modes, created_at, output_dir}, sweep-configuration
{sweep_sha256, configuration, configuration_sha256, mode, split, selected_ids_sha256, per_query_sha256, scores,
recorded_at}: one per configuration and mode of a calibration sweep, counted by check_trials. The `runs` table holds
the same runs. A held-out claim without its history is not a claim, so a missing or unreadable ledger FAILs.
"""

import sqlite3
from typing import Any

from ..core.context import Context
from ..core.digests import sha256_canonical
from ..core.reading import is_file
from ..core.report import Report
from .check_trials import check_trials
from .ledger_chain import HELD_OUT, LEDGER, Event, chain, read_ledger, runs_problem


def _ref(value: Any) -> tuple[Any, Any]:
    return (value.get("position"), value.get("digest")) if isinstance(value, dict) else (None, None)


def _run_position(ctx: Context, events: list[Event]) -> Any:
    """Where the receipt's run started in the history: its run-started event, else the recorded position."""
    run_id = ctx.receipt["run"].get("run_id")
    found = next((e for e in events if e.kind == "run-started" and e.value.get("run_id") == run_id), None)
    return found.position if found is not None else _ref(ctx.receipt["ledger"]["run_started"])[0]


def _check_run(ctx: Context, report: Report, events: list[Event], digests: dict[int, str]) -> None:
    run, block = ctx.receipt["run"], ctx.receipt["ledger"]
    position, digest = _ref(block["run_started"])
    event = next((e for e in events if e.position == position), None)
    detail = f"the receipt's run {run.get('run_id')} is the run-started event at position {position} of the ledger"
    if position not in digests:
        report.fail("ledger.run", detail + f": the ledger holds no event there ({len(digests)} events)", digest, None)
        return
    if digests[position] != digest:
        report.fail("ledger.run", detail + ", with the recorded digest", digest, digests[position])
        return
    if event is None or event.kind != "run-started":
        report.fail("ledger.run", detail, "a run-started event", event.value if event else None)
        return
    recorded = {"run_id": run.get("run_id"), "mode": ctx.mode, "split": ctx.split, "sequence": run.get("sequence"),
                "started_at": run.get("started_at"), "source_sha256": sha256_canonical(ctx.receipt["source"])}
    if "configuration_sha256" in event.value:  # absent from an event written before it was recorded
        recorded["configuration_sha256"] = ctx.receipt["system"].get("configuration_sha256")
    differing = {k: (v, event.value.get(k)) for k, v in recorded.items() if event.value.get(k) != v}
    earlier = sum(1 for e in events if e.kind == "run-started" and e.position < position
                  and (e.value.get("mode"), e.value.get("split")) == (ctx.mode, ctx.split))
    if run.get("sequence") != earlier + 1:
        differing["run number"] = (run.get("sequence"), f"{earlier + 1} ({earlier} earlier {ctx.mode} {ctx.split} "
                                                        "run-started events)")
    finished = next((e for e in events if e.kind == "run-finished" and e.position > position
                     and e.value.get("run_id") == run.get("run_id")), None)
    outcome = (finished.value.get("status"), finished.value.get("finished_at")) if finished else None
    if outcome != ("complete", run.get("finished_at")):
        differing["run-finished"] = (("complete", run.get("finished_at")), outcome)
    if differing:
        report.fail("ledger.run", detail + f"; differs in {', '.join(differing)}",
                    {k: pair[0] for k, pair in differing.items()}, {k: pair[1] for k, pair in differing.items()})
    else:
        report.ok("ledger.run", detail + f", run number {earlier + 1} of {ctx.mode} {ctx.split}, finished complete; "
                  "the receipt's source block is the source state its run-started event bound at the start" +
                  ("" if "configuration_sha256" not in event.value else ", and its configuration digest the one the "
                   "event recorded"))


def _check_freeze_history(ctx: Context, report: Report, events: list[Event], digests: dict[int, str]) -> None:
    name = "freeze.history"
    if ctx.split == "calibration":
        report.ok(name, "calibration runs need no freeze in the store's history")
        return
    block = ctx.receipt["ledger"]
    sha256 = (ctx.receipt.get("freeze") or {}).get("sha256")
    position, digest = _ref(block["freeze"])
    if sha256 is None or position is None:
        report.fail(name, f"a {ctx.split} receipt names its freeze and the freeze event it ran under",
                    "freeze sha256 and event", (sha256, block["freeze"]))
        return
    run_position = _run_position(ctx, events)
    before_run = [e for e in events if isinstance(run_position, int) and e.position < run_position]
    freezes = [e for e in before_run if e.kind == "freeze"]
    problems = []
    if not any(e.value.get("freeze_sha256") == sha256 for e in events if e.kind == "freeze"):
        problems.append(f"the ledger holds no freeze event for {sha256}")
    latest = freezes[-1] if freezes else None
    if latest is None or latest.value.get("freeze_sha256") != sha256:
        problems.append(f"the latest freeze before the run is {latest.describe() if latest else None}, not {sha256}")
    elif (latest.position, latest.digest) != (position, digest) or digests.get(position) != digest:
        problems.append(f"the receipt records freeze event (position {position}, {digest}); the ledger has "
                        f"{latest.describe()} with digest {latest.digest}")
    if latest is not None:
        before = [e for e in before_run if e.kind == "run-started" and e.value.get("split") in HELD_OUT
                  and e.position < latest.position]
        if before:
            problems.append(f"{before[0].describe()} was started before {latest.describe()}: the freeze came after "
                            "held-out results were seen")
    earlier = [e for e in before_run if e.kind == "run-started"
               and (e.value.get("mode"), e.value.get("split")) == (ctx.mode, ctx.split)]
    if earlier:
        problems.append(f"an earlier {ctx.split} run of {ctx.mode}: {earlier[0].describe()}; a {ctx.split} receipt "
                        "counts only for the first such run after the freeze")
    if problems:
        report.fail(name, f"the ledger must show the run as the first {ctx.split} run of {ctx.mode} under the store's "
                    "latest freeze, and no held-out or all-query run before that freeze: " + "; ".join(problems),
                    sha256, problems)
    else:
        report.ok(name, f"the ledger as presented shows the run as the first {ctx.split} run of {ctx.mode} under the "
                  f"store's latest freeze ({sha256}, ledger position {position}) and no held-out or all-query run "
                  "before that freeze; a ledger truncated or replaced by whoever can write the store would show none "
                  "too: the per-user held-out record (heldout.record, heldout.looks) is the second witness")


def check_history(ctx: Context, report: Report) -> None:
    block = ctx.receipt["ledger"]
    detail = "the receipt's ledger is the store's own run ledger and opens read-only"
    if block["file"] != LEDGER:
        report.fail("ledger.file", detail, LEDGER, block["file"])
        return
    if ctx.store_dir is None:
        report.fail("ledger.file", detail + ": " + ctx.places.unplaced("store (and so its ledger)", "--store-dir DIR"),
                    LEDGER, "missing")
        return
    expected = ctx.store_dir / LEDGER
    if not is_file(expected):
        report.fail("ledger.file", detail + ": a held-out claim without its history is not a claim (the store "
                    f"{ctx.where('the store', '--store-dir DIR', ctx.store_given)})", str(expected), "missing")
        return
    try:
        ledger = read_ledger(expected)
    except sqlite3.Error as exc:
        report.fail("ledger.file", detail, f"a readable run ledger at {expected}", f"{type(exc).__name__}: {exc}")
        return
    report.ok("ledger.file", f"{detail} ({expected}, {len(ledger.rows)} history events)")
    events, problem = chain(ledger)
    problem = problem or runs_problem(ledger, events)
    report.expect("ledger.chain", problem is None, "every history event's digest recomputes from the previous one "
                  f"by the recorded rule, positions 1..{len(ledger.rows)}, each event strict canonical JSON; the runs "
                  "table holds the same runs" + (f": {problem}" if problem else ""))
    digests = {row.position: row.digest for row in ledger.rows if isinstance(row.position, int)}
    _check_run(ctx, report, events, digests)
    _check_freeze_history(ctx, report, events, digests)
    check_trials(ctx, report, events)
    report.attest("history", f"the run number, the freeze and the order of runs come from {expected}, kept beside the "
                  "store on the run's machine: consistent with the receipt's recorded positions and digests, but "
                  "whoever can write the store can rewrite it")
