"""The comparisons, as pytest tests: `pytest -m compare` compares the modes of each split already evaluated in the
output directory, and with `--scifact-compare-run NAME=DIR` twice or more the evaluations of different systems, as
`scifact-harness compare` (with `--run`) does, into the output directory.

Each comparison is written (its inputs first held ELIGIBLE by the independent validator) or, when the file is already
there, computed again and compared byte for byte; then the validator checks the file, and it must be ELIGIBLE. A split
not evaluated yet is skipped, saying so, unless --scifact-require-receipts makes that a failure; a split of one mode
has nothing to compare; runs that are there but cannot be compared (not ELIGIBLE, tampered, another fixture, a
missing frozen mode) fail the test with the refusal. Each comparison's lines (the pairs' differences, intervals and
Holm-adjusted p-values, and the command that checks it) end the session's summary.
"""

import json
from pathlib import Path
from typing import Any

import pytest

from harness.cli.summary import COMPARISON_PROPERTY
from harness.corpus.split import SPLITS
from harness.errors import HarnessError
from harness.suite import options
from harness.suite.fixtures import failed

RecordProperty = Any  # pytest's record_property fixture
SPLIT_WORDS = {"calibration": "calibration", "heldout": "held-out", "all": "all-query"}


def _not_yet(config: pytest.Config, missing: str) -> None:
    """A split not evaluated yet: skipped, or with --scifact-require-receipts (CI, after every split ran) a failure."""
    if config.getoption(options.REQUIRE_RECEIPTS):
        pytest.fail(f"{options.REQUIRE_RECEIPTS}: {missing}", pytrace=False)
    pytest.skip(missing)


def _validated(path: Path, lines: list[str], split: str, record_property: RecordProperty) -> None:
    """The validator's verdict on the comparison file (ELIGIBLE, or the test fails naming each check that did not
    pass); its lines go to the session's summary."""
    from harness.validator.pipeline import validate_comparison

    report = validate_comparison(path)
    record_property(COMPARISON_PROPERTY, {"split": split, "lines": lines})
    print("\n".join(lines))
    assert report.eligible, "\n".join([f"{path}: {report.verdict()}",
                                       *(c.line() for c in report.checks if c.status != "pass")])


@pytest.mark.compare
@pytest.mark.parametrize("split", SPLITS)
def test_compare_modes(split: str, output_dir: Path, pytestconfig: pytest.Config,
                       record_property: RecordProperty) -> None:
    from harness.evaluation.comparison.artifact import (
        CompareRequest,
        Procedure,
        compare,
        comparison_document,
        comparison_name,
        document_bytes,
    )
    from harness.evaluation.comparison.inputs import load_inputs
    from harness.evaluation.gates.split_modes import split_modes
    from harness.evaluation.receipts.artifacts import output_dataset
    from harness.publish.text.comparison_lines import modes_summary
    from harness.publish.verdicts import validator_judgement

    incomplete: str | None = None
    modes: tuple[str, ...] = ()
    try:
        modes = split_modes(output_dir, split) if output_dir.is_dir() else ()
    except HarnessError as exc:  # a frozen mode without its run: the split is not complete
        incomplete = str(exc)
    if incomplete is not None:
        _not_yet(pytestconfig, incomplete)
    if not modes:
        _not_yet(pytestconfig, f"no {split} aggregate in {output_dir} yet: evaluate the {SPLIT_WORDS[split]} split "
                 "first")
    if len(modes) < 2:
        pytest.skip(f"{output_dir} holds one {split} mode ({modes[0]}): a comparison of modes needs two or more; "
                    f"compare it with another system's run with {options.COMPARE_RUN}=NAME=DIR, twice or more")
    target = output_dir / comparison_name(output_dataset(output_dir) or "", split)
    try:
        if target.is_file():
            existing = json.loads(target.read_bytes())
            stated = existing["procedure"]
            document = comparison_document(
                load_inputs(output_dir, split, modes), split, baseline=existing["baseline"],
                procedure=Procedure(stated["seed"], stated["bootstrap_resamples"], stated["permutations"]),
                verdicts=existing["inputs_validation"]["verdicts"])
            assert document_bytes(document) == target.read_bytes(), f"{target} does not reproduce byte for byte"
        else:
            target, document, _ = compare(CompareRequest(output_dir, split), validator_judgement)
    except HarnessError as exc:  # there, but refused: not ELIGIBLE, tampered, not one experiment
        raise failed(exc) from None
    _validated(target, modes_summary(target, document, None), split, record_property)


@pytest.mark.compare
@pytest.mark.parametrize("split", SPLITS)
def test_compare_systems(split: str, output_dir: Path, pytestconfig: pytest.Config,
                         record_property: RecordProperty) -> None:
    from harness.evaluation.comparison.artifact import Procedure, document_bytes
    from harness.evaluation.comparison.run_specs import parse_run
    from harness.evaluation.comparison.systems_artifact import (
        SystemsRequest,
        comparable_runs,
        compare_systems,
        systems_comparison_name,
        systems_document,
    )
    from harness.evaluation.gates.split_modes import present_modes
    from harness.publish.text.systems_text import systems_summary
    from harness.publish.verdicts import validator_judgement

    given = pytestconfig.getoption(options.COMPARE_RUN)
    if len(given) < 2:
        pytest.skip(f"give {options.COMPARE_RUN}=NAME=DIR twice or more to compare evaluations of different systems")
    try:
        runs = [parse_run(value) for value in given]
    except HarnessError as exc:  # a malformed value is an error, never a skip
        raise pytest.fail.Exception(f"{options.COMPARE_RUN}: {exc}", pytrace=False) from None
    absent = [f"{spec.name}={spec.output_dir}" for spec in runs if not spec.output_dir.is_dir()]
    if absent:  # a mistyped run is an error, never a skip
        pytest.fail(f"{options.COMPARE_RUN} {', '.join(absent)}: not a directory", pytrace=False)
    not_yet = [f"{spec.name}={spec.output_dir}" for spec in runs if not present_modes(spec.output_dir, split)]
    if not_yet:
        _not_yet(pytestconfig, f"not every run holds its {split} receipts yet: none in {', '.join(not_yet)}")
    request = SystemsRequest(output_dir=output_dir, split=split, runs=runs)
    try:
        loaded = comparable_runs(runs, split)
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
            output_dir.mkdir(parents=True, exist_ok=True)
            target, document, _ = compare_systems(request, validator_judgement)
    except HarnessError as exc:  # there, tampered or mismatched
        raise pytest.fail.Exception(f"the {split} runs are there but cannot be compared: {exc}",
                                    pytrace=False) from None
    _validated(target, systems_summary(target, document, None), split, record_property)
