"""The metric conventions a run's metrics are recomputed under, and `receipt.measures`, the receipt's stated
conventions held to them.

The conventions are those the validator's own pins hold for the fixture's dataset (the dataset the receipt's
contract names when the fixture is not at hand, which fails `corpus.fixture`), never the receipt's word. For a
dataset the validator holds no pins for it has no statement of its own, and takes none from the run: the metrics are
recomputed under trec_eval's conventions (`TREC_EVAL`: the grade as the gain, MAP@10 over every relevant document)
and the receipt held to those, as the check's line says, so a run claiming other conventions for such a dataset is
refused.
"""

from dataclasses import dataclass
from typing import Any

from ..core.context import Context
from ..core.report import Report
from ..dataset.pins import pins_for
from ..retrieval.ir_metrics import TREC_EVAL, Conventions


@dataclass(frozen=True)
class Measured:
    conventions: Conventions
    source: str  # whose conventions they are, in words


def pinned_conventions(dataset: Any) -> Measured:
    """The conventions the validator's own pins hold for `dataset` (a contract's name), else trec_eval's."""
    pins = pins_for(dataset)
    if pins is None:
        return Measured(TREC_EVAL, f"trec_eval's, as the validator holds no pins for {dataset!r}")
    return Measured(Conventions.of(pins.measures), f"those of the validator's own pins of {pins.title}")


def dataset_of(ctx: Context) -> Any:
    """The name of the fixture's dataset (its contract's), or the receipt's contract's when no fixture was read."""
    fixture = ctx.fixture
    contract = fixture.get("contract") if isinstance(fixture, dict) else ctx.receipt["corpus"]["contract"]
    return contract.get("name") if isinstance(contract, dict) else None


def run_conventions(ctx: Context) -> Measured:
    return pinned_conventions(dataset_of(ctx))


def check_measures(ctx: Context, measured: Measured, report: Report) -> None:
    report.equal("receipt.measures", measured.conventions.record(), ctx.receipt["measures"],
                 f"the receipt states the metric conventions every metric is recomputed under: {measured.source}")
