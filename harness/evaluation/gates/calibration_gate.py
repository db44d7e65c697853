"""What a freeze reads of calibration: each frozen mode's calibration receipt in the output directory.

A calibration whose queries failed says nothing about the configuration, and freezing it would spend the held-out
split on the same failures. So the freeze is refused when a frozen mode's calibration receipt records failed
queries (naming the mode, the count, the first failed query and its error), and when a frozen mode has no
calibration receipt in the output directory at all: a configuration never calibrated counts as a calibration that
failed entirely, and so does a receipt made under another configuration than the one frozen (a `--config` other
than its calibration run's, or a system whose configuration changed since). `--allow-failed-calibration` freezes
anyway; the freeze record's `calibration` block says so and
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


def _other_configuration(aggregate: dict[str, Any], mode: str, frozen: str) -> str | None:
    made = (aggregate.get("receipt", {}).get("system") or {}).get("configuration_sha256")
    if made == frozen:
        return None
    again = harness_command("run", "--split", "calibration", "--replace", "--config", "FILE")
    return (f"{mode}'s calibration receipt was made under the configuration {made}, and the one frozen is {frozen}: "
            "freeze the configuration that was calibrated (the same --config as its calibration run), or calibrate "
            f"this one first (`{again}`, with the freeze's --config)")


def _receipt(output_dir: Path, dataset: str, mode: str, frozen: str) -> tuple[dict[str, Any] | None, str | None]:
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
        return seen, _other_configuration(aggregate, mode, frozen)
    query_id, error = _first_failure(output_dir / aggregate["per_query_path"])
    return seen, (f"{mode}: {failures} of {rows} calibration queries failed; the first, query {query_id}: {error}. "
                  "Fix the system (or its configuration) and calibrate again")


def calibration_record(output_dir: Path, dataset: str, modes: tuple[str, ...], *, configuration_sha256: str,
                       allow_failed: bool) -> dict[str, Any]:
    """The freeze record's `calibration` block; refused on a failed or missing calibration, or one of another
    configuration than `configuration_sha256` (the frozen one's), unless `allow_failed`."""
    receipts, problems = {}, []
    for mode in modes:
        receipts[mode], problem = _receipt(output_dir, dataset, mode, configuration_sha256)
        if problem is not None:
            problems.append(problem)
    if problems and not allow_failed:
        raise CalibrationGateError(
            "the freeze is refused: " + "; ".join(problems) + ". The held-out split is spent only on a "
            "configuration whose calibration in this output directory ran whole, under that configuration: held-out "
            "results of a calibration that failed would be spent on the same failures. To freeze anyway, pass "
            f"{OPTION} (recorded in freeze.json).")
    return {"policy": ALLOWED if allow_failed else REQUIRED, "receipts": receipts}
