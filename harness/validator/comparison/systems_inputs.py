"""systems.inputs: a comparison between systems names, for each run, a directory, its freeze record and its arms; each
file is there with the sha256 the comparison records, each aggregate names those rows, its run, configuration, system,
fixture and embedding, each freeze record hashes to its own digest, and every receipt of the run names that digest.

A run's files are in `runs/NAME/` beside the comparison when that directory exists (a bundle puts them there), else in
the recorded output directory, relative to the comparison's.
"""

from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from ..core.digests import freeze_digest, sha256_file
from ..core.modes import MODES
from ..core.report import Report
from ..core.schemas import violation
from ..core.strict_json import StrictJSONError, load_file
from .comparison_inputs import Input, read_input

FREEZE_NAME = "freeze.json"


@dataclass
class Run:
    """One run of the comparison: its entry in the file, where its files are, its freeze record when recorded."""

    entry: dict[str, Any]
    directory: Path
    freeze: dict[str, Any] | None = None

    @property
    def name(self) -> str:
        return str(self.entry["name"])

    @property
    def freeze_path(self) -> Path | None:
        return None if self.entry["freeze"] is None else self.directory / FREEZE_NAME

    @property
    def freeze_sha256(self) -> str | None:
        return None if self.entry["freeze"] is None else str(self.entry["freeze"]["freeze_sha256"])


@dataclass
class Loaded:
    runs: list[Run]
    arms: dict[str, Input]  # label -> its rows and aggregate, runs in order, modes in mode order
    run_of: dict[str, Run]  # label -> its run


def run_directory(comparison_dir: Path, entry: dict[str, Any]) -> Path | str:
    """Where a run's files are, or why the recorded output directory cannot be one."""
    bundled = comparison_dir / "runs" / str(entry["name"])
    if bundled.is_dir():
        return bundled
    recorded = str(entry["output_dir"])
    if PurePosixPath(recorded).is_absolute() or PureWindowsPath(recorded).anchor or "\\" in recorded:
        return f"{entry['name']}: output_dir {recorded!r} is not a relative POSIX path"
    directory = comparison_dir.joinpath(*PurePosixPath(recorded).parts)
    return directory if directory.is_dir() else f"{entry['name']}: {directory} is not a directory"


def _freeze_problem(run: Run) -> str | None:
    """Reads the run's freeze record when the comparison records one; what is wrong with it, if anything."""
    path, recorded = run.directory / FREEZE_NAME, run.entry["freeze"]
    if recorded is None:
        return f"{run.name}: {path} is there, the comparison records no freeze" if path.exists() else None
    if not path.is_file():
        return f"{run.name}: the freeze record {path} is missing"
    if sha256_file(path) != recorded["file_sha256"]:
        return f"{run.name}: {path.name} has sha256 {sha256_file(path)}, recorded {recorded['file_sha256']}"
    try:
        record = load_file(path)
    except StrictJSONError as exc:
        return f"{run.name}: {path.name}: {exc}"
    problem = violation(record, "freeze")
    if problem is not None:
        return f"{run.name}: {path.name} is not a freeze record: {problem}"
    if not record["freeze_sha256"] == freeze_digest(record) == recorded["freeze_sha256"]:
        return (f"{run.name}: {path.name} states {record['freeze_sha256']}, hashes to {freeze_digest(record)}, the "
                f"comparison records {recorded['freeze_sha256']}")
    run.freeze = record
    return None


def _modes_problem(run: Run, split: str) -> str | None:
    """A run's arms are its chosen mode, else its frozen modes, else the modes of the split its directory holds."""
    choice = run.entry["mode_choice"]
    if choice is not None:
        expected, rule = [choice], "its chosen mode"
    elif run.freeze is not None:
        expected, rule = [m for m in MODES if m in run.freeze["modes"]], "its frozen modes"
    else:
        expected = [m for m in MODES if any(run.directory.glob(f"?*-{m}-{split}.aggregate.json"))]
        rule = f"the {split} modes of its directory"
    found = run.entry["modes"]
    return None if found == expected else f"{run.name}: modes {found}, not {rule} {expected}"


def _block(receipt: dict[str, Any], key: str) -> dict[str, Any]:
    block = receipt.get(key)
    return block if isinstance(block, dict) else {}


def _arm_problems(label: str, arm: Input, run: Run) -> list[str]:
    receipt, problems = arm.receipt, []
    system = receipt.get("system")
    stated = {key: system.get(key) if isinstance(system, dict) else None for key in ("name", "version")}
    if stated != run.entry["system"]:
        problems.append(f"{label}: the receipt's system is {stated}, the comparison records {run.entry['system']}")
    corpus, profile, embedding = (_block(receipt, key) for key in ("corpus", "profile", "embedding"))
    stated = {"fixture": {"sha256": corpus.get("fixture_sha256"), "profile": profile.get("name")},
              "embedding": {key: embedding.get(key) for key in ("model", "identity_sha256", "dimensions")}}
    recorded = {key: run.entry[key] for key in stated}
    if stated != recorded:
        problems.append(f"{label}: the receipt's fixture and embedding are {stated}, the comparison records {recorded}")
    named = receipt.get("freeze")
    named_sha256 = named.get("sha256") if isinstance(named, dict) else None
    if named_sha256 is not None and named_sha256 != run.freeze_sha256:
        problems.append(f"{label}: the receipt ran under freeze {named_sha256}, the comparison records "
                        f"{run.freeze_sha256} for {run.name}")
    return problems


def load_runs(document: dict[str, Any], comparison_dir: Path, report: Report) -> Loaded | None:
    """Every run and arm the comparison records, read once; None (systems.inputs failed) when anything is off."""
    split, problems = document["split"], []
    names = [entry["name"] for entry in document["runs"]]
    if len(set(names)) != len(names):
        problems.append(f"run names {names} are not each given once")
    runs: list[Run] = []
    for entry in document["runs"]:
        directory = run_directory(comparison_dir, entry)
        if isinstance(directory, str):
            problems.append(directory)
            continue
        run = Run(entry, directory)
        problems += [p for p in (_freeze_problem(run), _modes_problem(run, split)) if p is not None]
        runs.append(run)
    expected = [(entry["name"], mode) for entry in document["runs"] for mode in entry["modes"]]
    recorded = [(entry["run"], entry["mode"]) for entry in document["inputs"]]
    if recorded != expected:
        problems.append(f"inputs {recorded}, not each run's arms in run and mode order {expected}")
    by_name = {run.name: run for run in runs}
    arms, run_of = {}, {}
    for entry in document["inputs"]:
        label, owner = entry["label"], by_name.get(entry["run"])
        if label != f"{entry['run']}/{entry['mode']}":
            problems.append(f"input {label} is {entry['run']}'s {entry['mode']}")
        if owner is None or label in arms:
            continue
        found = read_input(label, entry, owner.directory, split)
        if isinstance(found, str):
            problems.append(found)
            continue
        problems += _arm_problems(label, found, owner)
        arms[label], run_of[label] = found, owner
    ok = report.expect("systems.inputs", not problems, "each run's rows, aggregates and freeze record are where the "
                       "comparison says, with the recorded sha256; each aggregate names those rows, its run, "
                       "configuration, system, fixture and embedding; each freeze record hashes to its digest, "
                       "which its run's receipts name", "the recorded inputs", problems[:4])
    return Loaded(runs, arms, run_of) if ok else None
