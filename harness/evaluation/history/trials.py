"""How many configurations were tried on calibration before a freeze, counted from the store's run ledger: the
freeze record's `calibration_trials` block (gates/freeze.py), which the validator recomputes from the same ledger
(harness/validator/history/check_trials.py).
"""

from typing import Any

from harness.evaluation.history.ledger import HistoryEvent
from harness.evaluation.history.sweep_ledger import SWEEP_EVENT

RULE = ("configurations = the number of distinct configuration_sha256 among the store's run ledger's "
        "sweep-configuration events and its calibration run-started events, at positions 1 through "
        "through_position (the event before the freeze); sweep_events and calibration_runs count those events; "
        "calibration_runs_unrecorded counts the calibration run-started events written without a "
        "configuration_sha256 (a ledger older than the count), whose configurations are not counted, so that "
        "configurations is then a lower bound; frozen_configuration_tried says whether the frozen configuration's "
        "digest is among them")


def calibration_trials(events: list[HistoryEvent], frozen_configuration_sha256: str) -> dict[str, Any]:
    """The block for a freeze appended after `events` (the whole history as it stands)."""
    sweeps = [e.event for e in events if e.kind == SWEEP_EVENT]
    runs = [e.event for e in events if e.kind == "run-started" and e.event.get("split") == "calibration"]
    digests = {str(e["configuration_sha256"]) for e in sweeps} | {
        str(e["configuration_sha256"]) for e in runs if "configuration_sha256" in e}
    return {"configurations": len(digests), "sweep_events": len(sweeps), "calibration_runs": len(runs),
            "calibration_runs_unrecorded": sum("configuration_sha256" not in e for e in runs),
            "frozen_configuration_tried": frozen_configuration_sha256 in digests,
            "through_position": events[-1].position if events else 0, "rule": RULE}
