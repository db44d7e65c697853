"""What a comparison between systems reads: each run's arms for one split, its freeze record, checked before any
statistic (docs/comparing-systems.md, "What the inputs must share")."""

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.evaluation.comparison.experiment import experiment_problems, judgement_disagreement, label
from harness.evaluation.comparison.fixtures_compared import (
    SAME_CONTENT_FIX,
    data_differences,
    embedding_record,
    fixture_record,
)
from harness.evaluation.comparison.inputs import ComparisonInputError, ComparisonRefused, ModeInput, load_input
from harness.evaluation.comparison.pairing import Arm
from harness.evaluation.comparison.run_specs import RunSpec
from harness.evaluation.gates.split_modes import FreezeFile, modes_of_split, read_freeze
from harness.hashing import sha256_bytes

HELD_OUT_SPLITS = ("heldout", "all")
RUN_FILE_MODE = "run_file"


@dataclass(frozen=True)
class RunInput:
    spec: RunSpec
    inputs: list[ModeInput]
    freeze: FreezeFile | None  # the run directory's freeze record, which every held-out or all-query receipt names

    @property
    def arms(self) -> list[Arm]:
        # a run file's one arm (its mode runs no lane) pairs with every arm, as a run given one mode does
        one = self.spec.mode_choice is not None or [entry.mode for entry in self.inputs] == [RUN_FILE_MODE]
        return [Arm(self.spec.name, entry.mode, one) for entry in self.inputs]

    @property
    def system(self) -> dict[str, Any]:
        system: dict[str, Any] = self.receipt["system"]
        return system

    @property
    def receipt(self) -> dict[str, Any]:
        """The first arm's receipt (every arm of a run shares its fixture, system, store and freeze)."""
        receipt: dict[str, Any] = self.inputs[0].aggregate["receipt"]
        return receipt

    def record(self, comparison_dir: Path) -> dict[str, Any]:
        relative = Path(os.path.relpath(self.spec.output_dir.resolve(), comparison_dir.resolve())).as_posix()
        freeze = None if self.freeze is None else {
            "file": "freeze.json", "file_sha256": sha256_bytes(self.freeze.raw),
            "freeze_sha256": self.freeze.record["freeze_sha256"]}
        return {"name": self.spec.name, "output_dir": relative, "mode_choice": self.spec.mode_choice,
                "modes": [entry.mode for entry in self.inputs],
                "system": {"name": self.system["name"], "version": self.system["version"]}, "freeze": freeze,
                "fixture": fixture_record(self.receipt), "embedding": embedding_record(self.receipt)}


def _named_freeze(inputs: Sequence[ModeInput]) -> set[str | None]:
    return {(entry.aggregate["receipt"].get("freeze") or {}).get("sha256") for entry in inputs}


def load_run(spec: RunSpec, split: str) -> RunInput:
    """One run's arms (its chosen mode, or every mode of the split), one experiment among themselves, and the freeze
    record their receipts name, read from the run's directory."""
    if not spec.output_dir.is_dir():
        raise ComparisonInputError(f"--run {spec.name}={spec.output_dir}: not a directory; give the output directory "
                                   "an evaluation was run into")
    freeze = read_freeze(spec.output_dir)
    modes = ((spec.mode_choice,) if spec.mode_choice is not None
             else modes_of_split(spec.output_dir, split, None if freeze is None else freeze.modes))
    if not modes:
        raise ComparisonInputError(f"--run {spec.name}: {spec.output_dir} holds no {split} aggregate; run `python -m "
                                   f"harness run --split {split} --output-dir {spec.output_dir}` first")
    inputs = [load_input(spec.output_dir, mode, split) for mode in modes]
    problems = experiment_problems(inputs, split) if len(inputs) > 1 else []
    if problems:
        raise ComparisonRefused(f"--run {spec.name}: its {split} runs are not of one experiment:\n  "
                                + "\n  ".join(problems))
    named = _named_freeze(inputs)
    if named == {None}:  # calibration receipts, or held-out ones without a freeze (refused by systems_problems)
        return RunInput(spec, inputs, freeze)
    recorded = None if freeze is None else freeze.record["freeze_sha256"]
    if named != {recorded}:
        raise ComparisonRefused(f"--run {spec.name}: the {split} receipts name the freeze {sorted(map(str, named))}, "
                                f"but {spec.output_dir / 'freeze.json'} is {recorded}: restore the freeze record they "
                                "ran under")
    return RunInput(spec, inputs, freeze)


def systems_problems(runs: Sequence[RunInput], split: str) -> list[str]:
    """What keeps `runs` from being compared: fixtures of other dataset content, other queries or judgements, a
    held-out run without a freeze, one run given twice. Fixtures that differ only in their embedding and text profile
    are no problem."""
    problems = []
    first = runs[0].inputs[0]
    for run in runs:
        entry = run.inputs[0]
        differences = data_differences(first.aggregate["receipt"], entry.aggregate["receipt"])
        if differences:
            problems.append(f"{label(first)} and {label(entry)} ran on fixtures of other data "
                            f"({first.aggregate['receipt']['corpus']['fixture_sha256']} and "
                            f"{entry.aggregate['receipt']['corpus']['fixture_sha256']}), which differ in "
                            f"{'; '.join(differences)}: {SAME_CONTENT_FIX}")
        if entry.query_ids != first.query_ids:
            problems.append(f"{label(first)} and {label(entry)} list different queries, or in another order")
        if split in HELD_OUT_SPLITS and _named_freeze(run.inputs) == {None}:
            problems.append(f"--run {run.spec.name}: its {split} receipts name no freeze, which a {split} run must "
                            "have run under")
    if not problems:
        disagreement = judgement_disagreement([run.inputs[0] for run in runs])
        if disagreement is not None:
            problems.append(f"the judgements differ: {disagreement}")
    seen: dict[object, str] = {}
    for run in runs:
        for entry in run.inputs:
            receipt = entry.aggregate["receipt"]
            for key in (entry.aggregate_sha256, (receipt["store"]["store_sha256"], receipt["run"]["run_id"])):
                if key in seen and seen[key] != run.spec.name:
                    problems.append(f"--run {seen[key]} and --run {run.spec.name} are the same run "
                                    f"({entry.aggregate_path.name}): compare different evaluations")
                seen[key] = run.spec.name
    return problems
