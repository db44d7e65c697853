"""An evaluation of one split: fixture -> system under test -> one run per mode, behind the split's gates."""

from dataclasses import dataclass, field
from pathlib import Path

from harness.corpus.contract import Contract, artifact_dataset
from harness.errors import HarnessError, RefusedError
from harness.evaluation.depth_ranking import asked
from harness.evaluation.gates.freeze import current_record, verify_freeze
from harness.evaluation.history import ledger
from harness.evaluation.measures.chosen import choose
from harness.evaluation.receipts.artifacts import aggregate_name
from harness.evaluation.receipts.identity_check import check_identity
from harness.evaluation.runner import ModeRun, run_mode
from harness.fixture.corpus_fixture import CorpusFixture, load_fixture
from harness.modes import MODES
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.system import NAME as BUILTIN
from harness.systems.protocol import SystemUnderTest
from harness.systems.registry.select import make_builder


class SplitGateError(RefusedError):
    """A split was requested before the steps that must precede it."""


@dataclass(frozen=True)
class Evaluation:
    corpus: Path
    store_dir: Path
    output_dir: Path
    split: str
    modes: tuple[str, ...] | None = None  # None: every mode the system offers
    config: SearchConfig = field(default_factory=SearchConfig)
    system: str = BUILTIN  # harness.systems.registry.select: builtin, a registered name, or module:attribute
    system_options: tuple[tuple[str, str], ...] = ()  # keyword arguments of the system (--milvus-uri)
    system_directory: Path | None = None  # where a module:attribute system's module lies (--system-path)
    replace: bool = False
    argv: tuple[str, ...] = ()
    measures: tuple[str, ...] = ()  # measures by name beside the defaults (--measure), as ir_measures writes them


def check_fixture_contract(fixture: CorpusFixture, contract: Contract) -> None:
    if fixture.data["contract"] != contract.summary():
        raise HarnessError(f"fixture {fixture.path} was built under contract {fixture.data['contract']['name']!r} "
                           f"with other terms than {contract.name!r}; build the fixture for this contract")


def check_split_gate(split: str, modes: tuple[str, ...], output_dir: Path, dataset: str, *,
                     is_contract: bool) -> None:
    """'all' only after a held-out receipt per mode (the freeze is checked by `frozen_reference`).
    A non-contract profile (mteb-parity) is a parity check, never a claim, so its 'all' is not gated."""
    if split == "all" and is_contract:
        missing = [m for m in modes if not (output_dir / aggregate_name(dataset, m, "heldout")).exists()]
        if missing:
            raise SplitGateError(f"--split all needs a held-out receipt first; none in {output_dir} "
                                 f"for {', '.join(missing)}. 'all' is a final receipt, not a tuning surface.")


def run_split(evaluation: Evaluation, contract: Contract, *, fixture: CorpusFixture | None = None,
              system: SystemUnderTest | None = None) -> list[ModeRun]:
    """The one entry point of the CLI and the pytest session: the gates, then one run per mode. A caller that
    already holds the fixture and the built system (a pytest session) passes them instead of paths to load."""
    unknown = [m for m in evaluation.modes or () if m not in MODES]
    if unknown:
        raise HarnessError(f"unknown mode(s) {unknown}; choose from {', '.join(MODES)}")
    choose(evaluation.measures, top_k=evaluation.config.top_k, deep=True)  # a bad name is named before any work
    fixture = fixture if fixture is not None else load_fixture(evaluation.corpus)
    check_fixture_contract(fixture, contract)
    is_contract = fixture.data["profile"]["is_contract"]
    builder = make_builder(contract.namespace, evaluation.config, evaluation.system, dict(evaluation.system_options),
                           directory=evaluation.system_directory) if system is None else None
    try:
        offered = builder.modes if builder is not None else system.modes if system is not None else MODES
        modes = offered_modes(evaluation.modes, offered, evaluation.system)
        check_split_gate(evaluation.split, modes, evaluation.output_dir, artifact_dataset(contract.name),
                         is_contract=is_contract)
        if builder is not None:  # a run after the freeze opens what was frozen: it never builds
            gated = evaluation.split != "calibration" and is_contract
            system = builder.open(fixture, evaluation.store_dir) if gated else builder.build(
                fixture, evaluation.store_dir)[0]
        assert system is not None
        check_identity(system.identity())
        chosen = choose(evaluation.measures, top_k=evaluation.config.top_k, deep=asked(system.identity()))
        freeze = frozen_reference(evaluation.split, modes, evaluation.output_dir, is_contract=is_contract,
                                  fixture=fixture, system=system, contract=contract)
        return [run_mode(mode=mode, split=evaluation.split, fixture=fixture, contract=contract, system=system,
                         top_k=evaluation.config.top_k, output_dir=evaluation.output_dir, replace=evaluation.replace,
                         argv=list(evaluation.argv), freeze=freeze, chosen=chosen)
                for mode in modes]
    finally:
        if builder is not None:  # the system's worker processes end with the evaluation that started them
            builder.close()


def offered_modes(requested: tuple[str, ...] | None, offered: tuple[str, ...], name: str) -> tuple[str, ...]:
    """The requested modes (None: all the system offers); one it does not offer is refused, with what it offers."""
    if requested is None:
        return tuple(m for m in MODES if m in offered)
    missing = [m for m in requested if m not in offered]
    if missing:
        raise HarnessError(f"system {name!r} does not offer {', '.join(missing)}; it offers {', '.join(offered)}: "
                           "pass --mode with one of those, or all")
    return requested


def frozen_reference(split: str, modes: tuple[str, ...], output_dir: Path, *, is_contract: bool,
                     fixture: CorpusFixture, system: SystemUnderTest, contract: Contract) -> dict[str, str] | None:
    """Calibration (and a parity profile) needs no freeze; held-out and all-query runs must match it, and each
    mode must be in turn in the system's history (checked for every mode before the first one runs)."""
    if split == "calibration" or not is_contract:
        return None
    now = current_record(fixture=fixture, system=system, contract=contract, modes=modes, argv=[], allow_dirty=True)
    reference = verify_freeze(output_dir, now, modes)
    for mode in modes:
        ledger.check_turn(system.state_directory, mode, split, reference["sha256"])
    return reference
