"""An evaluation: fixture -> store -> one run per mode on one split."""

from dataclasses import dataclass, field
from pathlib import Path

from .artifacts import aggregate_name
from .contract import Contract
from .errors import HarnessError
from .fixture import load_fixture
from .retrieval.config import MODES, SearchConfig
from .retrieval.searcher import Searcher
from .runner import ModeRun, check_fixture_contract, run_mode
from .store.store import build_store


class SplitGateError(HarnessError):
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
    allow_unfrozen_heldout: bool = False
    argv: tuple[str, ...] = ()


def check_split_gate(split: str, modes: tuple[str, ...], output_dir: Path, *, is_contract: bool,
                     allow_unfrozen_heldout: bool) -> None:
    """Held-out runs only on a frozen configuration; 'all' only after a held-out receipt per mode.
    A non-contract profile (mteb-parity) is a parity check, never a claim, so its 'all' is not gated."""
    if split == "heldout" and not allow_unfrozen_heldout:
        raise SplitGateError("the held-out split runs only against a frozen configuration; freeze it first "
                             "(or pass --allow-unfrozen-heldout, which the receipt records)")
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
    check_split_gate(evaluation.split, evaluation.modes, evaluation.output_dir,
                     is_contract=fixture.data["profile"]["is_contract"],
                     allow_unfrozen_heldout=evaluation.allow_unfrozen_heldout)
    store, _ = build_store(evaluation.store_dir, fixture, contract.namespace, evaluation.config.lexical)
    searcher = Searcher(store, fixture, evaluation.config)
    return [run_mode(mode=mode, split=evaluation.split, fixture=fixture, contract=contract, store=store,
                     searcher=searcher, output_dir=evaluation.output_dir, replace=evaluation.replace,
                     argv=list(evaluation.argv))
            for mode in evaluation.modes]
