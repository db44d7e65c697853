"""Which arms of a comparison between systems are paired, and in which order (docs/comparing-systems.md).

An arm is one run's one mode. Two arms are paired when they belong to different runs and either share their mode,
or at least one of the two runs was given a chosen mode (a run file's one arm, mode run_file, counts as chosen).
Without a baseline every two runs are paired, the later run's arm minus the earlier's; with one, each other run's arm
minus the baseline's.
"""

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Arm:
    run: str
    mode: str
    chosen: bool  # the run was given this one mode (NAME:MODE)

    @property
    def label(self) -> str:
        return f"{self.run}/{self.mode}"


def _paired(a: Arm, b: Arm) -> bool:
    return a.run != b.run and (a.mode == b.mode or a.chosen or b.chosen)


def arm_pairs(runs: Sequence[Sequence[Arm]], baseline: str | None) -> list[tuple[Arm, Arm]]:
    """(a, b) for each difference a - b; `runs` holds each run's arms in mode order, runs in --run order."""
    names = [arms[0].run for arms in runs]
    if baseline is None:
        orders = [(j, i) for j in range(1, len(runs)) for i in range(j)]
    else:
        base = names.index(baseline)
        orders = [(j, base) for j in range(len(runs)) if j != base]
    return [(a, b) for j, i in orders for a in runs[j] for b in runs[i] if _paired(a, b)]
