"""The comparison artifact: paired statistics of a split's modes (two or more), `scifact-comparison-<split>.json`.

It reads the rows and aggregates `python -m harness run` wrote, refuses rows that are not the aggregates'
(by digest) and mismatched query sets, and, for held-out and all-query splits, any aggregate the independent
validator does not find ELIGIBLE. The same rows, seed and counts give a byte-identical file: nothing in it
depends on the time, the paths or the machine.
"""

import json
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from harness.atomic import write_bytes_atomic
from harness.evaluation.comparison import paired_statistics as stats
from harness.evaluation.comparison.experiment import FIX as EXPERIMENT_FIX
from harness.evaluation.comparison.experiment import experiment_problems
from harness.evaluation.comparison.inputs import (
    ComparisonRefused,
    ModeInput,
    compared_metrics,
    dataset_of,
    load_inputs,
)
from harness.evaluation.comparison.procedure_terms import (
    DEFAULT_PERMUTATIONS,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    MIN_PERMUTATIONS,
    MIN_RESAMPLES,
)
from harness.evaluation.comparison.snapshot import write_snapshot
from harness.evaluation.gates.split_modes import FreezeFile, modes_of_split, read_freeze
from harness.hashing import sha256_canonical
from harness.schema_check import validate as validate_schema
from harness.typed_commands import validator_command

SCHEMA = "scifact-comparison-v1"
PRIMARY_METRIC = "ndcg_at_10"
VALIDATION_RULE = ("held-out and all-query comparisons read only aggregates the independent validator finds ELIGIBLE; "
                   "a calibration comparison may skip the validator with --no-validate, and then says so here")

Verdicts = dict[str, str]


class Judged(NamedTuple):
    """An aggregate to judge: the snapshot's copy, the freeze record to check it against (None: the one its receipt
    names), and the output directory it was read from (whose validation/ folder keeps its stored verdict)."""
    aggregate: Path
    freeze: Path | None
    home: Path


# the aggregates to judge, all in one call -> (eligible, why) for each; the command passes the independent
# validator's verdicts
Judgement = Callable[[Sequence[Judged]], list[tuple[bool, str]]]


def comparison_name(dataset: str, split: str) -> str:
    return f"{dataset}-comparison-{split}.json"


def pairs(baseline: str | None, modes: Sequence[str]) -> list[tuple[str, str]]:
    """(a, b) for each difference a - b: every later mode against every earlier one, or each mode against baseline."""
    if baseline is None:
        return [(modes[j], modes[i]) for j in range(1, len(modes)) for i in range(j)]
    return [(mode, baseline) for mode in modes if mode != baseline]


@dataclass(frozen=True)
class Procedure:
    seed: int = DEFAULT_SEED
    resamples: int = DEFAULT_RESAMPLES
    permutations: int = DEFAULT_PERMUTATIONS

    def check(self) -> None:
        if self.seed < 0 or self.seed >= 2**63:
            raise ComparisonRefused(f"--seed {self.seed}: choose an integer from 0 to 2^63 - 1")
        if self.resamples < MIN_RESAMPLES:
            raise ComparisonRefused(f"--resamples {self.resamples}: at least {MIN_RESAMPLES} bootstrap resamples")
        if self.permutations < MIN_PERMUTATIONS:
            raise ComparisonRefused(f"--permutations {self.permutations}: at least {MIN_PERMUTATIONS} "
                                    "permutations")

    def record(self) -> dict[str, Any]:
        return {"id": stats.PROCEDURE_ID, "seed": self.seed, "bootstrap_resamples": self.resamples,
                "permutations": self.permutations, "confidence": stats.CONFIDENCE, "alpha": stats.ALPHA,
                "tie_margin": stats.TIE_MARGIN, "descriptions": dict(stats.PROCEDURES)}


def one_experiment(inputs: Sequence[ModeInput], split: str) -> None:
    """Refused, naming what differs and between which inputs, unless `inputs` are runs of one experiment."""
    problems = experiment_problems(inputs, split)
    if problems:
        raise ComparisonRefused(f"the {split} inputs are not of one experiment, so they are not compared:\n  "
                                + "\n  ".join(problems) + f"\n{EXPERIMENT_FIX}")


def comparison_document(inputs: Sequence[ModeInput], split: str, *, baseline: str | None, procedure: Procedure,
                        verdicts: Verdicts | None, measures: Sequence[str] = ()) -> dict[str, Any]:
    """The artifact for `inputs` (one per mode, two or more, in the declared order); `verdicts` None means validation
    was skipped; `measures`: measures by name compared beside the defaults, which every input's run chose."""
    procedure.check()
    order = [entry.mode for entry in inputs]
    if len(order) < 2:
        raise ComparisonRefused(f"a comparison needs two modes or more; the {split} results hold only "
                                f"{', '.join(order) or 'none'}, so there is nothing to compare")
    one_experiment(inputs, split)
    if baseline is not None and baseline not in order:
        raise ComparisonRefused(f"--baseline {baseline}: the {split} results hold {', '.join(order)}; choose one of "
                                "them, or leave --baseline out to compare every pair")
    metrics = compared_metrics(inputs, measures, lambda entry: entry.mode)
    by_mode = {entry.mode: entry for entry in inputs}
    query_ids = inputs[0].query_ids
    sampled = stats.draws(procedure.seed, len(query_ids), procedure.resamples, procedure.permutations)
    modes: dict[str, Any] = {}
    for entry in inputs:
        modes[entry.mode] = {}
        for metric in metrics:
            values = entry.values(metric)
            low, high = stats.bootstrap_interval(values, sampled.indices)
            modes[entry.mode][metric] = {"mean": stats.mean(values), "ci_low": low, "ci_high": high}
    compared: list[dict[str, Any]] = [{"a": a, "b": b, "metrics": {
        metric: stats.paired_difference(by_mode[a].values(metric), by_mode[b].values(metric), sampled)
        for metric in metrics}} for a, b in pairs(baseline, order)]
    for metric in metrics:
        adjusted = stats.holm([c["metrics"][metric]["randomization"]["p_value"] for c in compared])
        for comparison, p in zip(compared, adjusted, strict=True):
            comparison["metrics"][metric].update(holm_p_value=p, significant_after_holm=p < stats.ALPHA)
    return {
        "schema": SCHEMA, "split": split, "baseline": baseline, "query_count": len(query_ids),
        "query_ids_sha256": sha256_canonical(query_ids), "metrics": list(metrics), "primary_metric": PRIMARY_METRIC,
        "inputs": [entry.record() for entry in inputs],
        "inputs_validation": {"rule": VALIDATION_RULE, "validated": verdicts is not None, "verdicts": verdicts},
        "procedure": procedure.record(), "modes": modes, "comparisons": compared,
    }


def document_bytes(document: dict[str, Any]) -> bytes:
    return json.dumps(document, ensure_ascii=False, allow_nan=False, indent=1).encode("utf-8") + b"\n"


def eligible_verdicts(inputs: Sequence[ModeInput], split: str, judge: Judgement,
                      freeze: FreezeFile | None = None) -> Verdicts:
    """Each input's verdict, on a snapshot of the very bytes read (and of `freeze`, the freeze record read with them);
    refused (listing the failing checks) unless every input is eligible."""
    verdicts, refused = {}, []
    with tempfile.TemporaryDirectory(prefix="scifact-compare-") as directory:
        frozen = write_snapshot(Path(directory), inputs, freeze)
        judged = zip(inputs, judge([Judged(Path(directory) / entry.aggregate_path.name, frozen,
                                           entry.aggregate_path.parent) for entry in inputs]), strict=True)
    for entry, (eligible, detail) in judged:
        verdicts[entry.mode] = "ELIGIBLE" if eligible else "NOT ELIGIBLE"
        if not eligible:
            refused.append(f"{entry.aggregate_path.name}: NOT ELIGIBLE ({detail})")
    if refused:
        forced = " or, for a calibration comparison only, --no-validate" if split == "calibration" else ""
        raise ComparisonRefused(f"{len(refused)} of the {split} aggregates are not ELIGIBLE under the validator, and a "
                                f"comparison reads only eligible ones: fix what `{validator_command('AGGREGATE')}` "
                                f"reports{forced}\n" + "\n".join(refused))
    return verdicts


@dataclass(frozen=True)
class CompareRequest:
    output_dir: Path
    split: str
    baseline: str | None = None
    procedure: Procedure = Procedure()
    validate_inputs: bool = True
    replace: bool = False
    measures: tuple[str, ...] = ()  # measures by name compared beside the defaults (compare --measure)


def clear_target(target: Path, replace: bool) -> Path | None:
    if not target.exists():
        return None
    if not replace:
        raise ComparisonRefused(f"{target} already exists; an artifact is never overwritten. Use another --output-dir, "
                                "or --replace to move the earlier comparison to superseded/")
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    moved = target.parent / "superseded" / stamp / target.name
    suffix = 0
    while moved.exists():
        suffix += 1
        moved = target.parent / "superseded" / f"{stamp}-{suffix}" / target.name
    moved.parent.mkdir(parents=True, exist_ok=True)
    target.rename(moved)
    return moved


def compare(request: CompareRequest, judge: Judgement) -> tuple[Path, dict[str, Any], Path | None]:
    """Write the comparison; return its path, the document and where an earlier one was moved (if anywhere)."""
    if not request.validate_inputs and request.split != "calibration":
        raise ComparisonRefused(f"--no-validate is for calibration comparisons only; a {request.split} comparison "
                                "reads only aggregates the validator finds ELIGIBLE")
    request.procedure.check()
    target = request.output_dir / comparison_name(dataset_of(request.output_dir, request.split), request.split)
    if target.exists() and not request.replace:
        clear_target(target, replace=False)
    freeze = read_freeze(request.output_dir)
    modes = modes_of_split(request.output_dir, request.split, None if freeze is None else freeze.modes)
    inputs = load_inputs(request.output_dir, request.split, modes)
    if len(inputs) > 1:
        one_experiment(inputs, request.split)  # before the validator's minutes, not after
    compared_metrics(inputs, request.measures, lambda entry: entry.mode)
    verdicts = eligible_verdicts(inputs, request.split, judge, freeze) if request.validate_inputs else None
    document = comparison_document(inputs, request.split, baseline=request.baseline, procedure=request.procedure,
                                   measures=request.measures, verdicts=verdicts)
    validate_schema(document, "comparison")
    moved = clear_target(target, request.replace)
    write_bytes_atomic(target, document_bytes(document))
    return target, document, moved
