"""How many configurations the frozen one was chosen from, in words for the freeze's line, CLAIMS.md and the report:
the freeze record's `calibration_trials` (harness/evaluation/history/trials.py), which the validator recounts from the
store's run ledger (`history.trials`) and whose figures the bundle reader's texts check holds to the validated record.
"""

from typing import Any


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def trials_phrase(block: dict[str, Any]) -> str:
    """'chosen from 12 configurations tried on calibration (36 sweep evaluations, 3 calibration runs)'."""
    unrecorded = int(block["calibration_runs_unrecorded"])
    least = "at least " if unrecorded else ""
    without = f", {unrecorded} of them without a recorded configuration" if unrecorded else ""
    return (f"chosen from {least}{_plural(int(block['configurations']), 'configuration')} tried on calibration "
            f"({_plural(int(block['sweep_events']), 'sweep evaluation')}, "
            f"{_plural(int(block['calibration_runs']), 'calibration run')}{without})")


def trials_statement(freeze: dict[str, Any] | None) -> str | None:
    """One sentence for CLAIMS.md and the report; None without a freeze record."""
    if freeze is None:
        return None
    block = freeze.get("calibration_trials")
    if not isinstance(block, dict):
        return ("Calibration trials: not counted (the freeze record was written before the count of configurations "
                "tried on calibration was kept).")
    missing = "" if block["frozen_configuration_tried"] else (" The frozen configuration is not among them: it was "
                                                               "frozen without a calibration run of its own.")
    return (f"Calibration trials: {trials_phrase(block)}, counted from the store's run ledger (ledger.sqlite3) "
            f"through position {block['through_position']} and recorded in freeze.json's "
            "calibration_trials. The validator recounts it from that ledger; that no entry was removed from it is "
            f"the publisher's word.{missing}")

