"""The freeze: what held-out runs must match, recorded before the first of them.

`python -m harness freeze` (in the library, `freeze_configuration`) appends a `freeze` event to the
store's run ledger, then writes OUTPUT/freeze.json. It is refused when a frozen mode's calibration failed or was
never run into OUTPUT, unless --allow-failed-calibration (`harness.evaluation.gates.calibration_gate`, recorded),
and when the harness's work tree, or the git work tree of a system's source outside it, has uncommitted changes,
unless --allow-dirty (recorded; a system's source under no git is recorded as bound by its files' digests only). A
held-out or all-query run is refused without it, when anything it records differs now (the message names the
field), or when the store's history says
the run is out of turn (see `harness.evaluation.history.ledger`). The freeze itself is refused once any held-out or
all-query run has started on the store, whatever receipts exist, and while a held-out or all-query
receipt exists in OUTPUT.
"""

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.atomic import write_bytes_atomic
from harness.corpus.contract import Contract, artifact_dataset
from harness.corpus.split import ALGORITHM
from harness.errors import HarnessError, RefusedError
from harness.evaluation.gates.calibration_gate import calibration_record
from harness.evaluation.gates.dirty_trees import dirty_trees, refusal
from harness.evaluation.gates.frozen_difference import first_difference, next_step
from harness.evaluation.gates.hypothesis import declaration
from harness.evaluation.gates.hypothesis_terms import FamilyRequest
from harness.evaluation.history import ledger
from harness.evaluation.history.trials import calibration_trials
from harness.evaluation.receipts import provenance
from harness.evaluation.receipts.artifacts import AGGREGATE_SUFFIXES
from harness.evaluation.receipts.identity_check import check_identity
from harness.evaluation.receipts.locations import found_here, record_locations
from harness.evaluation.receipts.portable import command_in_words, name_of
from harness.fixture.corpus_fixture import CorpusFixture
from harness.fixture.pinning import unpinned_parts
from harness.hashing import sha256_canonical
from harness.json_input import read_document
from harness.modes import MODES
from harness.schema_check import validate
from harness.systems.protocol import SystemUnderTest

FREEZE_NAME = "freeze.json"
SCHEMA = "scifact-freeze-v2"
# Names are recorded for the reader; what a file is, its digest, is what is compared. A fixture renamed, or a store
# or work dir moved with its bytes, is the same freeze. The record names no local place (see receipts/locations.py).
NOT_COMPARED = {"created_at", "command_line", "freeze_sha256", "source.dirty_state_policy", "corpus.fixture_file",
                "store.directory_name", "store.mapping_file", "system.source.root", "calibration", "hypothesis",
                "hypotheses", "calibration_trials"}
# A record made to compare a run against the freeze reads no calibration receipt (what the freeze saw is not compared).
NOT_READ = {"policy": "not read: a record to compare a run with its freeze, not a freeze", "receipts": {}}


class FreezeError(RefusedError):
    """The freeze is missing, differs from the current configuration, or cannot be rewritten."""


class FreezeRecordError(HarnessError):
    """freeze.json is not a freeze record the harness wrote (not JSON, not an object, off its schema)."""


@dataclass(frozen=True)
class Frozen:
    path: Path
    record: dict[str, Any]
    event: ledger.EventRef  # the freeze event in the store's history


def current_record(*, fixture: CorpusFixture, system: SystemUnderTest, contract: Contract,
                   modes: tuple[str, ...], argv: list[str], allow_dirty: bool,
                   calibration: dict[str, Any] | None = None, hypotheses: dict[str, Any] | None = None,
                   trials: dict[str, Any] | None = None) -> dict[str, Any]:
    source = provenance.harness_source()
    git = source["git"]
    identity = system.identity()
    machine = provenance.machine()
    body: dict[str, Any] = {
        "schema": SCHEMA,
        "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "source": {"git": {k: git.get(k) for k in ("available", "commit", "dirty", "diff_sha256", "status_sha256")},
                   "harness_sha256": source["harness"]["sha256"],
                   "distribution": source["distribution"],
                   "dirty_state_policy": "dirty tree allowed and recorded: runs are not eligible for a claim"
                   if allow_dirty else "clean work tree required",
                   "system_tree": provenance.system_tree(
                       Path(identity.source["root"]),
                       is_harness=identity.source_sha256 == source["harness"]["sha256"])},
        "corpus": {"fixture_file": name_of(fixture.path), "fixture_sha256": fixture.sha256,
                   "profile": fixture.data["profile"]["name"]},
        "embedding": {"model": fixture.data["embedding"]["model"],
                      "identity_sha256": fixture.data["embedding"]["identity_sha256"],
                      "dimensions": fixture.data["embedding"]["dimensions"]},
        "system": identity.record(),
        "store": system.freeze_record(),
        "modes": sorted(modes, key=MODES.index),
        "search_config": identity.configuration,
        "search_config_sha256": identity.configuration_sha256,
        "split": {"algorithm": ALGORITHM, "calibration_count": contract.calibration_count},
        "calibration": NOT_READ if calibration is None else calibration,
        "command_line": command_in_words(argv),
        "host": {k: machine[k] for k in ("hostname", "cpu_model", "logical_cores", "os", "machine")},
    }
    if hypotheses is not None:
        body["hypotheses"] = hypotheses
    if trials is not None:
        body["calibration_trials"] = trials
    body["freeze_sha256"] = sha256_canonical(body)
    return body


def _held_out_receipts(output_dir: Path) -> list[Path]:
    suffixes = tuple(suffix for suffix, (_, split) in AGGREGATE_SUFFIXES.items() if split in ("heldout", "all"))
    return sorted(p for p in output_dir.rglob("*.aggregate.json") if p.name.endswith(suffixes)) \
        if output_dir.is_dir() else []


def freeze_configuration(*, fixture: CorpusFixture, system: SystemUnderTest, contract: Contract,
                         modes: tuple[str, ...], output_dir: Path, argv: list[str], allow_dirty: bool,
                         replace: bool, allow_failed_calibration: bool = False,
                         hypotheses: FamilyRequest | None = None) -> Frozen:
    """Freeze the current configuration: the one entry point of the CLI and the tests. Refused when a frozen mode's
    calibration receipt in `output_dir` records failed queries, or is missing, unless `allow_failed_calibration`
    (`harness.evaluation.gates.calibration_gate`)."""
    unpinned = unpinned_parts(fixture.data, contract)
    if unpinned:
        raise FreezeError(f"fixture {fixture.path} is not the pinned {contract.name} dataset: its "
                          f"{', '.join(unpinned)} differ{'s' if unpinned == ['archive'] else ''} from the contract's "
                          "pinned digests. An unpinned fixture can "
                          "be evaluated on calibration but never frozen for a claim; rebuild the fixture from the "
                          "pinned archive (python -m harness build) and evaluate that")
    check_identity(system.identity())
    calibration = calibration_record(output_dir, artifact_dataset(contract.name), tuple(sorted(modes, key=MODES.index)),
                                     configuration_sha256=system.identity().configuration_sha256,
                                     allow_failed=allow_failed_calibration)
    declared = None
    if hypotheses is not None:
        if any(member.baseline_dir.resolve() == output_dir.resolve() for member in hypotheses.members):
            raise FreezeError("--hypothesis-baseline names this freeze's own --output-dir; a hypothesis compares this "
                              "system with another frozen run: name that run's output directory")
        declared = declaration(hypotheses, modes=tuple(m for m in MODES if m in modes), fixture=fixture.data,
                               fixture_sha256=fixture.sha256)
    identity = system.identity()
    trials = calibration_trials(ledger.history(system.state_directory), identity.configuration_sha256)
    record = current_record(fixture=fixture, system=system, contract=contract, modes=modes, argv=argv,
                            allow_dirty=allow_dirty, calibration=calibration, hypotheses=declared, trials=trials)
    frozen = _write_freeze(output_dir, system, record, replace=replace)
    record_locations(output_dir, found_here(fixture, system))
    return frozen


def _write_freeze(output_dir: Path, system: SystemUnderTest, record: dict[str, Any], *, replace: bool) -> Frozen:
    state_directory = system.state_directory
    dirty = dirty_trees(record, Path(system.identity().source["root"]))
    if dirty and record["source"]["dirty_state_policy"] == "clean work tree required":
        raise FreezeError(refusal(dirty))
    receipts = _held_out_receipts(output_dir)
    if receipts:
        raise FreezeError(f"a held-out receipt exists ({receipts[0]}); the freeze cannot be rewritten after "
                          "held-out evaluation. Start a new output directory for a new configuration.")
    path = output_dir / FREEZE_NAME
    if path.exists() and not replace:
        raise FreezeError(f"{path} exists; pass --replace to re-freeze (possible until the first held-out run)")
    validate(record, "freeze")
    event = ledger.record_freeze(state_directory, freeze_sha256=record["freeze_sha256"], modes=record["modes"],
                                 created_at=record["created_at"], output_dir=str(output_dir),
                                 through_position=record["calibration_trials"]["through_position"])
    if path.exists():
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        (output_dir / "superseded" / stamp).mkdir(parents=True, exist_ok=True)
        path.rename(output_dir / "superseded" / stamp / FREEZE_NAME)
    write_bytes_atomic(path, json.dumps(record, indent=1, ensure_ascii=False).encode("utf-8") + b"\n")
    return Frozen(path, record, event)


def verify_freeze(output_dir: Path, now: dict[str, Any], modes: tuple[str, ...]) -> dict[str, str]:
    """Return the receipt's reference to the freeze, or refuse with the first field that differs."""
    path = output_dir / FREEZE_NAME
    if not path.is_file():
        raise FreezeError(f"no freeze record at {path}: held-out runs need a frozen configuration. "
                          "Run `python -m harness freeze` after calibration.")
    frozen = read_document(path, "freeze record", "freeze", "freeze again with `python -m harness freeze --replace` "
                           "(possible until the first held-out run)", FreezeRecordError)
    if sha256_canonical({k: v for k, v in frozen.items() if k != "freeze_sha256"}) != frozen["freeze_sha256"]:
        raise FreezeError(f"{path} does not match its own freeze_sha256: it was edited after freezing")
    for mode in modes:
        if mode not in frozen["modes"]:
            raise FreezeError(f"mode {mode!r} was not frozen (frozen modes: {frozen['modes']})")
    comparable = {k: v for k, v in frozen.items() if k != "modes"}
    difference = first_difference(comparable, {k: v for k, v in now.items() if k != "modes"}, NOT_COMPARED)
    if difference:
        raise FreezeError(f"this run differs from the freeze in {difference}; held-out runs must match the "
                          f"freeze exactly. Next: {next_step(difference, frozen)}")
    return {"path": str(path), "sha256": frozen["freeze_sha256"]}
