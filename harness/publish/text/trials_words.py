"""How many configurations the frozen one was chosen from, in words for the freeze's line, CLAIMS.md and the report:
the freeze record's `calibration_trials` (harness/evaluation/history/trials.py), which the validator recounts from the
store's run ledger (`history.trials`) and whose figures the bundle reader's texts check holds to the validated record.
"""

from dataclasses import asdict
from typing import Any

from harness.systems.builtin.config.overrides import PARAMETERS
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.names import BUILTIN


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


def _parameter(config: dict[str, Any], name: str) -> Any:
    head, _, tail = name.partition(".")
    value = config.get(head)
    return value.get(tail) if tail and isinstance(value, dict) else value


def configuration_phrase(system_name: str, config: dict[str, Any]) -> str:
    """The settable parameters of the built-in system's configuration that are not its defaults, in words for the
    configuration line: '; the defaults but lexical.k1 0.9, rrf_k 20' (empty for a system of its own)."""
    if system_name != BUILTIN:
        return ""
    default = asdict(SearchConfig())
    changed = [f"{name} {_parameter(config, name)}" for name in PARAMETERS
               if _parameter(config, name) != _parameter(default, name)]
    return f"; the built-in defaults but {', '.join(changed)}" if changed else "; the built-in defaults"
