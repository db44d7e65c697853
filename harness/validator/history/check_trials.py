"""`history.trials`: the freeze record's count of the configurations tried on calibration, recomputed by the validator
from the store's run ledger up to the freeze event.

The freeze record's `calibration_trials` block states: `configurations`, the distinct configuration digests among the
ledger's sweep-configuration events and its calibration run-started events at positions 1 through `through_position`
(the event before the freeze event); `sweep_events` and `calibration_runs`, those events' counts;
`calibration_runs_unrecorded`, the calibration run-started events without a configuration digest (written before the
digest was recorded: their configurations are not counted, so the count is then a lower bound);
`frozen_configuration_tried`, whether the frozen configuration's digest is among them. Every number is recomputed
here; a sweep event must name the calibration split. The ledger is the publisher's: the count is established as
consistent with it, and attested as complete (whoever can write the store can remove an event and rechain the rest).
A freeze record written before the count was kept has no block, and says so.
"""

from typing import Any

from ..core.context import Context
from ..core.report import Report
from .ledger_chain import Event

SWEEP_EVENT = "sweep-configuration"
NAME = "history.trials"


def recount(events: list[Event], freeze_position: int, frozen_configuration: Any) -> dict[str, Any]:
    """The block's numbers, from the events before the freeze event."""
    before = [e for e in events if e.position < freeze_position]
    sweeps = [e.value for e in before if e.kind == SWEEP_EVENT]
    runs = [e.value for e in before if e.kind == "run-started" and e.value.get("split") == "calibration"]
    digests = {e["configuration_sha256"] for e in sweeps} | {
        e["configuration_sha256"] for e in runs if "configuration_sha256" in e}
    return {"configurations": len(digests), "sweep_events": len(sweeps), "calibration_runs": len(runs),
            "calibration_runs_unrecorded": sum("configuration_sha256" not in e for e in runs),
            "frozen_configuration_tried": frozen_configuration in digests, "through_position": freeze_position - 1}


def _freeze_position(ctx: Context, events: list[Event], sha256: Any) -> int | None:
    """The freeze event the run ran under: at the position the receipt recorded when a freeze event is there, else
    the first freeze event of the record's digest (freeze.history and freeze.recorded hold the receipt's freeze, its
    position and digest to the ledger and the record)."""
    recorded = (ctx.receipt.get("ledger") or {}).get("freeze")
    position = recorded.get("position") if isinstance(recorded, dict) else None
    freezes = [e for e in events if e.kind == "freeze"]
    at = [e for e in freezes if e.position == position] or [e for e in freezes
                                                             if e.value.get("freeze_sha256") == sha256]
    return at[0].position if at else None


def check_trials(ctx: Context, report: Report, events: list[Event]) -> None:
    if ctx.split == "calibration":
        report.ok(NAME, "a calibration run comes before any freeze: the count of configurations tried on calibration "
                  "is held to the ledger with the receipts that run under the freeze")
        return
    if ctx.freeze is None:
        return  # no freeze record: `freeze` failed, and there is no count to hold
    block = ctx.freeze.get("calibration_trials")
    sha256 = ctx.freeze.get("freeze_sha256")
    if not isinstance(block, dict):
        report.ok(NAME, f"the freeze record {sha256} records no count of the configurations tried on calibration (a "
                  "record written before the count was kept): how many were tried before it is not stated")
        return
    position = _freeze_position(ctx, events, sha256)
    if position is None:
        report.fail(NAME, f"the freeze record's count of configurations tried is counted up to its freeze event, and "
                    f"the ledger holds no freeze event of {sha256}", "a freeze event", None)
        return
    found = recount(events, position, ctx.freeze.get("search_config_sha256"))
    stated = {key: block.get(key) for key in found}
    other_split = [e.position for e in events if e.kind == SWEEP_EVENT and e.position < position
                   and e.value.get("split") != "calibration"]
    differing = sorted(key for key in found if stated[key] != found[key] or isinstance(stated[key], bool)
                       != isinstance(found[key], bool))
    if differing or other_split:
        problems = [f"{key}: the record states {stated[key]!r}, the ledger gives {found[key]!r}" for key in differing]
        if other_split:
            problems.append(f"sweep events at positions {other_split} name a split other than calibration")
        report.fail(NAME, "the freeze record's calibration_trials recomputes from the store's run ledger before the "
                    f"freeze event (position {position}): " + "; ".join(problems),
                    {k: found[k] for k in differing}, {k: stated[k] for k in differing})
        return
    unrecorded = found["calibration_runs_unrecorded"]
    lower = (f"; {unrecorded} calibration run{'s' if unrecorded != 1 else ''} recorded no configuration digest (a "
             "ledger written before it was recorded): their configurations are not counted, so this is a lower "
             "bound") if unrecorded else ""
    tried = "" if found["frozen_configuration_tried"] else "; the frozen configuration is not among them"
    report.ok(NAME, f"{found['configurations']} configuration{'s' if found['configurations'] != 1 else ''} tried on "
              f"calibration ({found['sweep_events']} sweep events, {found['calibration_runs']} calibration runs), "
              f"recounted from the run ledger through position {found['through_position']}, before the freeze event"
              f"{lower}{tried}")
    report.attest(NAME, "the count of configurations tried on calibration is read from the publisher's run ledger: "
                  "established as consistent with it here, attested as complete (whoever can write the store can "
                  "remove an event and rechain the rest)")
