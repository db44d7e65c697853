"""`pytest -m compare --scifact-compare-run NAME=DIR --scifact-compare-run NAME2=DIR2`: the comparison between those
evaluations of each split they all hold, written into --scifact-output-dir (or, when one is there, recomputed and
compared byte for byte), then checked by the independent validator. Without two --scifact-compare-run it is skipped;
a split some run holds no aggregate of yet is skipped, unless --scifact-require-receipts (CI) makes that a failure; runs
that are there but cannot be compared (tampered, another fixture, a missing mode, a replaced freeze) fail the test."""

import json
from pathlib import Path

import pytest

from harness.evaluation.comparison.artifact import Procedure, document_bytes
from harness.evaluation.comparison.inputs import ComparisonInputError, ComparisonRefused
from harness.evaluation.comparison.run_specs import parse_run
from harness.evaluation.comparison.systems_artifact import (
    SystemsRequest,
    comparable_runs,
    compare_systems,
    systems_comparison_name,
    systems_document,
)
from harness.evaluation.gates.split_modes import MissingModeError, present_modes
from harness.publish.text.systems_text import systems_summary
from harness.publish.verdicts import validator_judgement
from harness.validator.pipeline import validate_comparison


@pytest.mark.compare
@pytest.mark.parametrize("split", ["calibration", "heldout", "all"])
def test_compare_systems(split: str, output_dir: Path, pytestconfig: pytest.Config) -> None:
    given = pytestconfig.getoption("--scifact-compare-run")
    if len(given) < 2:
        pytest.skip("give --scifact-compare-run NAME=DIR twice or more to compare evaluations of different systems")
    runs = [parse_run(value) for value in given]
    absent = [f"{spec.name}={spec.output_dir}" for spec in runs if not spec.output_dir.is_dir()]
    if absent:  # a mistyped run is an error, never a skip
        pytest.fail(f"--scifact-compare-run {', '.join(absent)}: not a directory", pytrace=False)
    not_yet = [f"{spec.name}={spec.output_dir}" for spec in runs if not _holds_split(spec.output_dir, split)]
    if not_yet:
        if pytestconfig.getoption("--scifact-require-receipts"):
            pytest.fail(f"--scifact-require-receipts: no {split} aggregate in {', '.join(not_yet)}", pytrace=False)
        pytest.skip(f"not every run holds its {split} receipts yet: none in {', '.join(not_yet)}")
    refused: str | None = None
    try:
        loaded = comparable_runs(runs, split)
    except (ComparisonInputError, ComparisonRefused, MissingModeError) as exc:  # there, tampered or mismatched
        refused = str(exc)
    if refused is not None:
        pytest.fail(f"the {split} runs are there but cannot be compared: {refused}", pytrace=False)
    request = SystemsRequest(output_dir=output_dir, split=split, runs=runs)
    target = output_dir / systems_comparison_name(loaded[0].inputs[0].dataset, split)
    if target.is_file():
        existing = json.loads(target.read_bytes())
        stated = existing["procedure"]
        request = SystemsRequest(output_dir=output_dir, split=split, runs=runs, baseline=existing["baseline"],
                                 procedure=Procedure(stated["seed"], stated["bootstrap_resamples"],
                                                     stated["permutations"]))
        again = systems_document(loaded, request, output_dir, existing["inputs_validation"]["verdicts"])
        assert document_bytes(again) == target.read_bytes(), f"{target} does not reproduce byte for byte"
        document = existing
    else:
        target, document, _ = compare_systems(request, validator_judgement)
    report = validate_comparison(target)
    assert report.eligible, "\n".join(c.line() for c in report.checks if c.status != "pass")
    print("\n".join(systems_summary(target, document, None)))


def _holds_split(output_dir: Path, split: str) -> bool:
    return bool(present_modes(output_dir, split))
