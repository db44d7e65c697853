"""Which modes a split of an output directory holds, for everything that reads results after a run.

With a freeze beside the results, a split's modes are the frozen ones (a system may offer one mode, or the freeze
may name fewer than it offers), and each of them must be there: a frozen mode that is missing is named, never
skipped. Without a freeze (calibration before freezing), they are the modes whose aggregates are there. Always in
the declared order of harness.modes.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.corpus.split import SPLITS
from harness.errors import HarnessError
from harness.evaluation.gates.freeze import FREEZE_NAME, FreezeRecordError
from harness.evaluation.receipts.artifacts import aggregate_name, output_dataset
from harness.json_input import parse_document
from harness.modes import MODES
from harness.typed_commands import harness_command


class MissingModeError(HarnessError):
    """A frozen mode has no aggregate for a split."""


@dataclass(frozen=True)
class FreezeFile:
    """OUTPUT/freeze.json as read once: its bytes (what a snapshot for the validator holds) and its record."""

    raw: bytes
    record: dict[str, Any]

    @property
    def modes(self) -> tuple[str, ...]:
        return tuple(mode for mode in MODES if mode in self.record["modes"])


def read_freeze(output_dir: Path) -> FreezeFile | None:
    """OUTPUT/freeze.json, read once and checked against its schema; None without one."""
    path = output_dir / FREEZE_NAME
    if not path.exists():
        return None
    raw = path.read_bytes()
    record = parse_document(raw, path, "freeze record", "freeze", f"freeze again with `{harness_command('freeze')} "
                            "--replace` (possible until the first held-out run)", FreezeRecordError)
    return FreezeFile(raw, record)


def frozen_modes(output_dir: Path) -> tuple[str, ...] | None:
    """The modes of OUTPUT/freeze.json, or None without one."""
    freeze = read_freeze(output_dir)
    return None if freeze is None else freeze.modes


def present_modes(output_dir: Path, split: str, dataset: str | None = None) -> tuple[str, ...]:
    """The modes whose `split` aggregate lies in `output_dir`, of `dataset` (default: the one dataset it holds)."""
    dataset = dataset or output_dataset(output_dir)
    return () if dataset is None else tuple(
        mode for mode in MODES if (output_dir / aggregate_name(dataset, mode, split)).is_file())


def split_modes(output_dir: Path, split: str) -> tuple[str, ...]:
    """The modes of `split`: the frozen ones, all present (else MissingModeError), or without a freeze the present
    ones (possibly none)."""
    return modes_of_split(output_dir, split, frozen_modes(output_dir))


def modes_of_split(output_dir: Path, split: str, frozen: tuple[str, ...] | None) -> tuple[str, ...]:
    """`split_modes` for the frozen modes of a freeze record already read (None: no freeze)."""
    if frozen is None:
        return present_modes(output_dir, split)
    dataset = output_dataset(output_dir)
    present = present_modes(output_dir, split, dataset)
    missing = [aggregate_name(dataset, mode, split) if dataset else f"{mode}'s {split} aggregate" for mode in frozen
               if mode not in present]
    if missing:
        raise MissingModeError(f"{output_dir} lacks {', '.join(missing)}: the freeze names the modes "
                               f"{', '.join(frozen)}, and each needs its {split} run (`"
                               f"{harness_command('run', '--split', split, '--output-dir', output_dir)}`)")
    return frozen


def complete_splits(output_dir: Path) -> dict[str, tuple[str, ...]]:
    """The splits with every mode they need (all frozen modes, or without a freeze at least one), each with those
    modes; the freeze is read once."""
    return splits_with_modes(output_dir, frozen_modes(output_dir))


def splits_with_modes(output_dir: Path, frozen: tuple[str, ...] | None) -> dict[str, tuple[str, ...]]:
    """`complete_splits` for the frozen modes of a freeze record already read (None: no freeze)."""
    complete = {}
    for split in SPLITS:
        present = present_modes(output_dir, split)
        if present and (frozen is None or set(frozen) <= set(present)):
            complete[split] = present if frozen is None else frozen
    return complete
