"""What a freeze reads of calibration: each frozen mode's calibration receipt in the output directory.

A calibration whose queries failed says nothing about the configuration, and freezing it would spend the held-out
split on the same failures. So the freeze is refused when a frozen mode's calibration receipt records failed
queries (naming the mode, the count, the first failed query and its error), and when a frozen mode has no
calibration receipt in the output directory at all: a configuration never calibrated counts as a calibration that
failed entirely. `--allow-failed-calibration` freezes anyway; the freeze record's `calibration` block says so and
lists what it saw (each receipt's sha256, rows and failures, or null for a mode without one).
"""

import json
from pathlib import Path
from typing import Any

from harness.errors import RefusedError
from harness.evaluation.receipts.artifacts import aggregate_name
from harness.hashing import sha256_file
from harness.json_input import read_document
from harness.typed_commands import harness_command

OPTION = "--allow-failed-calibration"
REQUIRED = "every frozen mode's calibration receipt present, without failed queries"
ALLOWED = (f"{OPTION} given: frozen whatever the calibration receipts record (failed queries, or no receipt); "
           "held-out results of a mode whose calibration failed say little about its configuration")


class CalibrationGateError(RefusedError):
    """A frozen mode's calibration failed, or was never run into this output directory."""


def _first_failure(rows_path: Path) -> tuple[str, str]:
    """The first failed row's query id and error, read from the rows file."""
    if rows_path.is_file():
        for line in rows_path.read_bytes().splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                break
            if isinstance(row, dict) and row.get("error"):
                return str(row.get("query_id")), str(row["error"])
    return "?", f"(no failed row found in {rows_path})"


def _receipt(output_dir: Path, dataset: str, mode: str) -> tuple[dict[str, Any] | None, str | None]:
    """What the freeze records of one mode's calibration, and the problem with it, if any."""
    path = output_dir / aggregate_name(dataset, mode, "calibration")
    if not path.is_file():
        return None, (f"{mode} has no calibration receipt ({path.name}) in {output_dir}: run its calibration into "
                      "this output directory first")
    again = harness_command("run", "--split", "calibration", "--replace")
    aggregate = read_document(path, "calibration receipt", "aggregate", "run the calibration again (`make "
                              f"calibration`, or `{again}`)", CalibrationGateError)
    failures, rows = aggregate["metrics"]["failures"], aggregate["row_count"]
    seen = {"aggregate": path.name, "sha256": sha256_file(path), "row_count": rows, "failures": failures}
    if not failures:
        return seen, None
    query_id, error = _first_failure(output_dir / aggregate["per_query_path"])
    return seen, (f"{mode}: {failures} of {rows} calibration queries failed; the first, query {query_id}: {error}. "
                  "Fix the system (or its configuration) and calibrate again")


def calibration_record(output_dir: Path, dataset: str, modes: tuple[str, ...], *, allow_failed: bool) -> dict[str, Any]:
    """The freeze record's `calibration` block; refused on a failed or missing calibration unless `allow_failed`."""
    receipts, problems = {}, []
    for mode in modes:
        receipts[mode], problem = _receipt(output_dir, dataset, mode)
        if problem is not None:
            problems.append(problem)
    if problems and not allow_failed:
        raise CalibrationGateError(
            "the freeze is refused: " + "; ".join(problems) + f". Held-out results of a configuration whose "
            f"calibration failed would be spent on the same failures. To freeze anyway, pass {OPTION} (recorded in "
            "freeze.json).")
    return {"policy": ALLOWED if allow_failed else REQUIRED, "receipts": receipts}
