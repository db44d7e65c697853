"""The bytes a comparison or a report read, written into a private directory for the independent validator: its
verdict is then on exactly the bytes the statistics were computed from and the report renders, whatever happens to
the output directory meanwhile."""

from collections.abc import Sequence
from pathlib import Path

from harness.atomic import write_file
from harness.evaluation.comparison.inputs import ModeInput
from harness.evaluation.gates.freeze import FREEZE_NAME
from harness.evaluation.gates.split_modes import FreezeFile


def write_snapshot(directory: Path, inputs: Sequence[ModeInput], freeze: FreezeFile | None) -> Path | None:
    """Each input's aggregate and rows under their own names in `directory`, and the freeze record read with them;
    returns the snapshot's freeze record (None without one), which the validator is to check the receipts against."""
    for entry in inputs:
        write_file(directory / entry.aggregate_path.name, entry.aggregate_bytes)
        write_file(directory / entry.rows_path.name, entry.rows_bytes)
    if freeze is None:
        return None
    path = directory / FREEZE_NAME
    write_file(path, freeze.raw)
    return path
