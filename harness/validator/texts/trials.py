"""The sentence that says how many configurations the frozen one was chosen from, held to the freeze record the
bundle's held-out aggregates were validated against (their `history.trials` recounted its `calibration_trials` from
the run ledger): each count, the ledger position, and whether the frozen configuration is among them."""

import re

from .facts import Facts
from .figures import Tally

TRIALS = re.compile(r"^Calibration trials: (?:(?P<none>not counted)|chosen from (?P<least>at least )?(?P<n>\d+) "
                    r"configurations? tried on calibration \((?P<k>\d+) sweep evaluations?, (?P<m>\d+) calibration "
                    r"runs?(?:, (?P<u>\d+) of them without a recorded configuration)?\)(?P<rest>.*))")
POSITION = re.compile(r"through position (?P<p>\d+)")
NOT_AMONG = "The frozen configuration is not among them"
SOURCE = "the freeze record the held-out aggregates were validated against"


def check_trials_text(tally: Tally, line: int, facts: Facts, found: re.Match[str]) -> None:
    if facts.freeze is None:
        tally.skip("the count of configurations tried on calibration (no held-out aggregate was validated against "
                   "the bundle's freeze record)")
        return
    block = facts.freeze.get("calibration_trials")
    if found["none"] or not isinstance(block, dict):
        tally.word(line, "the count of configurations tried on calibration", "not counted" if found["none"] else
                   "counted", "counted" if isinstance(block, dict) else "not counted", SOURCE)
        return
    position = POSITION.search(found["rest"])
    shown = [found["n"], found["k"], found["m"], found["u"] or "0", position["p"] if position else ""]
    expected = [block.get(key) for key in ("configurations", "sweep_events", "calibration_runs",
                                           "calibration_runs_unrecorded", "through_position")]
    tally.compare(line, "the count of configurations tried on calibration (configurations, sweep evaluations, "
                  "calibration runs, those without a recorded configuration, the ledger position)", shown, expected,
                  SOURCE)
    tally.word(line, "whether the count is a lower bound", "at least" if found["least"] else "exact",
               "at least" if block.get("calibration_runs_unrecorded") else "exact", SOURCE)
    tally.word(line, "whether the frozen configuration is among those tried",
               "not among them" if NOT_AMONG in found["rest"] else "among them",
               "among them" if block.get("frozen_configuration_tried") else "not among them", SOURCE)
