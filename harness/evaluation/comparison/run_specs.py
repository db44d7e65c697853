"""`--run NAME=DIR` and `--run NAME:MODE=DIR`: the evaluations a comparison between systems reads."""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.errors import HarnessError
from harness.modes import MODES

NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
FORM = "NAME=OUTPUT_DIR or NAME:MODE=OUTPUT_DIR (for example builtin=work-dir/results or tfidf:hybrid=work-dir/r2)"


class RunSpecError(HarnessError):
    """A `--run` value or the set of runs is malformed (a usage error)."""


@dataclass(frozen=True)
class RunSpec:
    name: str
    output_dir: Path
    mode_choice: str | None


def parse_run(text: str) -> RunSpec:
    """One `--run` value, or a UsageError naming what is wrong with it and the form it takes."""
    head, separator, directory = text.partition("=")
    if not separator or not directory:
        raise RunSpecError(f"--run {text!r}: give {FORM}")
    name, colon, mode = head.partition(":")
    if NAME_PATTERN.fullmatch(name) is None:
        raise RunSpecError(f"--run {text!r}: the name {name!r} must be a letter or digit, then letters, digits, '.', "
                         "'_' or '-', at most 64 characters")
    if colon and mode not in MODES:
        raise RunSpecError(f"--run {text!r}: the mode {mode!r} is not one of {', '.join(MODES)}")
    return RunSpec(name, Path(directory), mode if colon else None)


def check_runs(runs: Sequence[RunSpec], baseline: str | None) -> None:
    names = [run.name for run in runs]
    if len(runs) < 2:
        raise RunSpecError(f"a comparison between systems needs two --run or more; got {len(runs)}")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise RunSpecError(f"--run names must differ; {', '.join(repeated)} is given more than once")
    if baseline is not None and baseline not in names:
        raise RunSpecError(f"--baseline {baseline}: not one of the runs ({', '.join(names)}); give a --run NAME")
