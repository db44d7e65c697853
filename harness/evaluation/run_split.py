"""An evaluation: fixture -> store -> one run per mode on one split."""

from dataclasses import dataclass, field
from pathlib import Path

from harness.corpus.contract import Contract
from harness.errors import HarnessError, RefusedError
from harness.evaluation import ledger
from harness.evaluation.artifacts import aggregate_name
from harness.evaluation.freeze import current_record, verify_freeze
from harness.evaluation.runner import ModeRun, check_fixture_contract, run_mode
from harness.fixture.corpus_fixture import CorpusFixture, load_fixture
from harness.systems.builtin.config import MODES, SearchConfig
from harness.systems.builtin.search.searcher import Searcher
from harness.systems.builtin.store.store import Store, build_store


class SplitGateError(RefusedError):
    """A split was requested before the steps that must precede it."""


@dataclass(frozen=True)
class Evaluation:
    corpus: Path
    store_dir: Path
    output_dir: Path
    split: str
    modes: tuple[str, ...] = MODES
    config: SearchConfig = field(default_factory=SearchConfig)
    replace: bool = False
    argv: tuple[str, ...] = ()


def check_split_gate(split: str, modes: tuple[str, ...], output_dir: Path, *, is_contract: bool) -> None:
    """'all' only after a held-out receipt per mode (the freeze is checked by `frozen_reference`).
    A non-contract profile (mteb-parity) is a parity check, never a claim, so its 'all' is not gated."""
    if split == "all" and is_contract:
        missing = [m for m in modes if not (output_dir / aggregate_name(m, "heldout")).exists()]
        if missing:
            raise SplitGateError(f"--split all needs a held-out receipt first; none in {output_dir} "
                                 f"for {', '.join(missing)}. 'all' is a final receipt, not a tuning surface.")


def evaluate(evaluation: Evaluation, contract: Contract) -> list[ModeRun]:
    unknown = [m for m in evaluation.modes if m not in MODES]
    if unknown:
        raise HarnessError(f"unknown mode(s) {unknown}; choose from {', '.join(MODES)}")
    fixture = load_fixture(evaluation.corpus)
    check_fixture_contract(fixture, contract)
    is_contract = fixture.data["profile"]["is_contract"]
    check_split_gate(evaluation.split, evaluation.modes, evaluation.output_dir, is_contract=is_contract)
    store, _ = build_store(evaluation.store_dir, fixture, contract.namespace, evaluation.config.lexical)
    searcher = Searcher(store, fixture, evaluation.config)
    freeze = frozen_reference(evaluation.split, evaluation.modes, evaluation.output_dir, is_contract=is_contract,
                              fixture=fixture, store=store, config=evaluation.config, contract=contract)
    return [run_mode(mode=mode, split=evaluation.split, fixture=fixture, contract=contract, store=store,
                     searcher=searcher, output_dir=evaluation.output_dir, replace=evaluation.replace,
                     argv=list(evaluation.argv), freeze=freeze)
            for mode in evaluation.modes]


def frozen_reference(split: str, modes: tuple[str, ...], output_dir: Path, *, is_contract: bool,
                     fixture: CorpusFixture, store: Store, config: SearchConfig,
                     contract: Contract) -> dict[str, str] | None:
    """Calibration (and a parity profile) needs no freeze; held-out and all-query runs must match it, and each
    mode must be in turn in the store's history (checked for every mode before the first one runs)."""
    if split == "calibration" or not is_contract:
        return None
    now = current_record(fixture=fixture, store=store, config=config, contract=contract, modes=modes, argv=[],
                         allow_dirty=True)
    reference = verify_freeze(output_dir, now, modes)
    for mode in modes:
        ledger.check_turn(store.directory, mode, split, reference["sha256"])
    return reference
