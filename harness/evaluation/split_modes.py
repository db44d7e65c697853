"""Which modes a split of an output directory holds, for everything that reads results after a run.

With a freeze beside the results, a split's modes are the frozen ones (a system may offer one mode, or the freeze
may name fewer than it offers), and each of them must be there: a frozen mode that is missing is named, never
skipped. Without a freeze (calibration before freezing), they are the modes whose aggregates are there. Always in
the declared order of harness.modes.
"""

from pathlib import Path

from harness.errors import HarnessError
from harness.evaluation.artifacts import aggregate_name
from harness.evaluation.freeze import FREEZE_NAME, FreezeRecordError
from harness.json_input import read_document
from harness.modes import MODES

SPLITS = ("calibration", "heldout", "all")


class MissingModeError(HarnessError):
    """A frozen mode has no aggregate for a split."""


def frozen_modes(output_dir: Path) -> tuple[str, ...] | None:
    """The modes of OUTPUT/freeze.json, or None without one."""
    path = output_dir / FREEZE_NAME
    if not path.exists():
        return None
    record = read_document(path, "freeze record", "freeze", "freeze again with `python -m harness freeze "
                           "--replace` (possible until the first held-out run)", FreezeRecordError)
    return tuple(mode for mode in MODES if mode in record["modes"])


def present_modes(output_dir: Path, split: str) -> tuple[str, ...]:
    return tuple(mode for mode in MODES if (output_dir / aggregate_name(mode, split)).is_file())


def split_modes(output_dir: Path, split: str) -> tuple[str, ...]:
    """The modes of `split`: the frozen ones, all present (else MissingModeError), or without a freeze the present
    ones (possibly none)."""
    frozen = frozen_modes(output_dir)
    if frozen is None:
        return present_modes(output_dir, split)
    missing = [aggregate_name(mode, split) for mode in frozen if mode not in present_modes(output_dir, split)]
    if missing:
        raise MissingModeError(f"{output_dir} lacks {', '.join(missing)}: the freeze names the modes "
                               f"{', '.join(frozen)}, and each needs its {split} run (`python -m harness run --split "
                               f"{split} --output-dir {output_dir}`)")
    return frozen


def complete_splits(output_dir: Path) -> dict[str, tuple[str, ...]]:
    """The splits with every mode they need (all frozen modes, or without a freeze at least one), each with those
    modes; the freeze is read once."""
    frozen = frozen_modes(output_dir)
    complete = {}
    for split in SPLITS:
        present = present_modes(output_dir, split)
        if present and (frozen is None or set(frozen) <= set(present)):
            complete[split] = present if frozen is None else frozen
    return complete
