"""The comparison between systems: `scifact-systems-<split>.json`, paired statistics between arms of different
evaluations (docs/comparing-systems.md). The same inputs, seed and counts give a byte-identical file."""

import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.atomic import write_bytes_atomic
from harness.evaluation.comparison import paired_statistics as stats
from harness.evaluation.comparison.artifact import (
    PRIMARY_METRIC,
    Judged,
    Judgement,
    Procedure,
    clear_target,
    document_bytes,
)
from harness.evaluation.comparison.fixtures_compared import content_record, fixtures_sentence
from harness.evaluation.comparison.hypotheses import Reading, earlier_looks, read_hypotheses, with_hypothesis_pairs
from harness.evaluation.comparison.hypothesis_results import PROCEDURES as HYPOTHESIS_PROCEDURES
from harness.evaluation.comparison.hypothesis_results import family_record
from harness.evaluation.comparison.inputs import ComparisonRefused, ModeInput, compared_metrics
from harness.evaluation.comparison.pairing import Arm, arm_pairs
from harness.evaluation.comparison.run_specs import RunSpec, check_runs
from harness.evaluation.comparison.snapshot import write_snapshot
from harness.evaluation.comparison.systems_inputs import RunInput, load_run, systems_problems
from harness.hashing import sha256_canonical
from harness.schema_check import validate as validate_schema
from harness.typed_commands import validator_command

SCHEMA = "scifact-systems-comparison-v3"
HOLM_FAMILY = ("for each metric separately, every pair of arms this artifact compares on this split (the pairs the "
               "pairing rule gives and the pair of any declared hypothesis), two-sided: an exploratory reading that "
               "decides no hypothesis (hypothesis_family does); nDCG@10 is the primary metric, the others secondary")
VALIDATION_RULE = ("held-out and all-query comparisons read only aggregates the independent validator finds ELIGIBLE, "
                   "each against its own run's freeze record; a calibration comparison may skip the validator with "
                   "--no-validate, and then says so here")


def _earlier_looks(arms: Sequence[tuple[dict[str, Any], str | None]]) -> tuple[int, str] | None:
    """The looks the arms' receipts date at or before their run's freeze (`earlier_looks`); None when a receipt names
    no record or a run has no freeze."""
    dated = []
    for receipt, frozen_at in arms:
        block = receipt.get("heldout_looks")
        if block is None or frozen_at is None:
            return None
        dated.append((block, frozen_at))
    return earlier_looks(dated)


def scope(split: str, count: int, calibration_count: int, arms: Sequence[tuple[dict[str, Any], str | None]]) -> str:
    """The one sentence that says what a comparison on `split` covers; for held-out, whether the arms' receipts
    (each with its run's freeze time) attest the queries unseen before the freeze."""
    if split == "calibration":
        return "calibration queries only: the configurations were chosen on them, so every result here is exploratory"
    if split == "all":
        return (f"all {count} queries, including the {calibration_count} calibration queries the configurations were "
                "chosen on")
    earlier = _earlier_looks(arms)
    if earlier is None:
        return (f"the {count} held-out queries; a run's receipt names no held-out record, so that they were unseen "
                "before the freeze is not attested")
    if earlier[0] == 0:
        return (f"the {count} held-out queries, unseen before the freeze as the publisher's attested held-out record "
                "shows")
    looks = f"{earlier[0]} earlier held-out look{'' if earlier[0] == 1 else 's'}"
    return (f"the {count} held-out queries, not unseen before the freeze: {looks} at {earlier[1]}, as the publisher's "
            "attested held-out record shows")


def systems_comparison_name(dataset: str, split: str) -> str:
    return f"{dataset}-systems-{split}.json"


@dataclass(frozen=True)
class SystemsRequest:
    output_dir: Path
    split: str
    runs: Sequence[RunSpec]
    baseline: str | None = None
    procedure: Procedure = field(default_factory=Procedure)
    validate_inputs: bool = True
    replace: bool = False
    measures: tuple[str, ...] = ()  # measures by name compared beside the defaults (compare --measure)


def _label(runs: Sequence[RunInput]) -> Callable[[ModeInput], str]:
    """An input's arm label (NAME/MODE), for a refusal."""
    labels = {id(entry): arm.label for run in runs for arm, entry in zip(run.arms, run.inputs, strict=True)}
    return lambda entry: labels[id(entry)]


def _verdicts(runs: Sequence[RunInput], judge: Judgement) -> dict[str, str]:
    """Each arm's verdict on a snapshot of the bytes read (its run's freeze record with it); refused unless all are
    ELIGIBLE."""
    verdicts, refused = {}, []
    with tempfile.TemporaryDirectory(prefix="scifact-compare-systems-") as directory:
        asked: list[tuple[str, ModeInput, Judged]] = []
        for run in runs:
            place = Path(directory) / run.spec.name
            place.mkdir()
            frozen = write_snapshot(place, run.inputs, run.freeze)
            asked += [(run.spec.name, entry, Judged(place / entry.aggregate_path.name, frozen,
                                                    entry.aggregate_path.parent)) for entry in run.inputs]
        answers = judge([judged for _, _, judged in asked])
    for (name, entry, _), (eligible, detail) in zip(asked, answers, strict=True):
        label = f"{name}/{entry.mode}"
        verdicts[label] = "ELIGIBLE" if eligible else "NOT ELIGIBLE"
        if not eligible:
            refused.append(f"{label} ({entry.aggregate_path}): NOT ELIGIBLE ({detail})")
    if refused:
        raise ComparisonRefused(f"{len(refused)} of the aggregates are not ELIGIBLE under the validator, and a "
                                f"comparison reads only eligible ones: fix what "
                                f"`{validator_command('AGGREGATE', '--freeze', 'FREEZE')}` reports\n"
                                + "\n".join(refused))
    return verdicts


def _input_record(arm: Arm, entry: ModeInput) -> dict[str, Any]:
    return {"label": arm.label, "run": arm.run, **entry.record()}


def comparable_runs(specs: Sequence[RunSpec], split: str) -> list[RunInput]:
    """Each run read for `split`; refused, naming every problem, unless they can be compared."""
    runs = [load_run(spec, split) for spec in specs]
    problems = systems_problems(runs, split)
    if problems:
        raise ComparisonRefused(f"the {split} runs cannot be compared:\n  " + "\n  ".join(problems))
    return runs


def systems_document(runs: Sequence[RunInput], request: SystemsRequest, comparison_dir: Path,
                     verdicts: dict[str, str] | None) -> dict[str, Any]:
    """The document for `runs`, which `comparable_runs` read and checked."""
    split, procedure = request.split, request.procedure
    by_label = {arm.label: entry for run in runs for arm, entry in zip(run.arms, run.inputs, strict=True)}
    families = read_hypotheses(runs, split)
    pairs = with_hypothesis_pairs(arm_pairs([run.arms for run in runs], request.baseline), families)
    if not pairs:
        raise ComparisonRefused("no two arms pair: arms of different runs pair when they share a mode, or when a run "
                                "was given one mode (--run NAME:MODE=DIR); choose the modes to compare")
    metrics = compared_metrics([entry for run in runs for entry in run.inputs], request.measures, _label(runs))
    query_ids = runs[0].inputs[0].query_ids
    sampled = stats.draws(procedure.seed, len(query_ids), procedure.resamples, procedure.permutations)
    arms = {label: {metric: dict(zip(("mean", "ci_low", "ci_high"),
                                     (stats.mean(entry.values(metric)),
                                      *stats.bootstrap_interval(entry.values(metric), sampled.indices)), strict=True))
                    for metric in metrics} for label, entry in by_label.items()}
    confirmatory = {member.pair for family in families for member in family.members
                    if member.status == "confirmatory"}
    compared: list[dict[str, Any]] = [
        {"a": a.label, "b": b.label, "status": "confirmatory" if (a, b) in confirmatory else "exploratory",
         "metrics": {metric: stats.paired_difference(by_label[a.label].values(metric), by_label[b.label].values(metric),
                                                     sampled) for metric in metrics}} for a, b in pairs]
    for metric in metrics:
        adjusted = stats.holm([c["metrics"][metric]["randomization"]["p_value"] for c in compared])
        for comparison, p in zip(compared, adjusted, strict=True):
            comparison["metrics"][metric].update(holm_p_value=p, significant_after_holm=p < stats.ALPHA)

    def differences_of(member: Reading) -> list[float]:
        assert member.pair is not None
        a, b, metric = member.pair[0].label, member.pair[1].label, member.declaration["metric"]
        return [x - y for x, y in zip(by_label[a].values(metric), by_label[b].values(metric), strict=True)]
    hypotheses = [family_record(family, differences_of, sampled.signs) for family in families]
    calibration_count = runs[0].inputs[0].aggregate["receipt"]["split"]["calibration_count"]
    records = [run.record(comparison_dir) for run in runs]
    record = procedure.record()
    record["descriptions"] = {**record["descriptions"], "holm_family": HOLM_FAMILY, **HYPOTHESIS_PROCEDURES}
    return {
        "schema": SCHEMA, "split": split, "scope": scope(split, len(query_ids), calibration_count, [
            (entry.aggregate["receipt"], None if run.freeze is None else run.freeze.record["created_at"])
            for run in runs for entry in run.inputs]),
        "baseline": request.baseline, "query_count": len(query_ids), "query_ids_sha256": sha256_canonical(query_ids),
        "metrics": list(metrics), "primary_metric": PRIMARY_METRIC,
        "runs": records,
        "content": content_record(runs[0].receipt),
        "fixtures": fixtures_sentence([(record["name"], record) for record in records]),
        "inputs": [_input_record(arm, entry) for run in runs for arm, entry in zip(run.arms, run.inputs, strict=True)],
        "inputs_validation": {"rule": VALIDATION_RULE, "validated": verdicts is not None, "verdicts": verdicts},
        "procedure": record, "arms": arms, "comparisons": compared, "hypotheses": hypotheses,
    }


def compare_systems(request: SystemsRequest, judge: Judgement) -> tuple[Path, dict[str, Any], Path | None]:
    """Write the comparison between systems; return its path, the document and where an earlier one was moved."""
    if not request.validate_inputs and request.split != "calibration":
        raise ComparisonRefused(f"--no-validate is for calibration comparisons only; a {request.split} comparison "
                                "reads only aggregates the validator finds ELIGIBLE")
    request.procedure.check()
    check_runs(request.runs, request.baseline)
    runs = comparable_runs(request.runs, request.split)  # before the validator's minutes, not after
    compared_metrics([entry for run in runs for entry in run.inputs], request.measures, _label(runs))
    target = request.output_dir / systems_comparison_name(runs[0].inputs[0].dataset, request.split)
    if target.exists() and not request.replace:
        clear_target(target, replace=False)
    verdicts = _verdicts(runs, judge) if request.validate_inputs else None
    document = systems_document(runs, request, request.output_dir, verdicts)
    validate_schema(document, "systems-comparison")
    moved = clear_target(target, request.replace)
    write_bytes_atomic(target, document_bytes(document))
    return target, document, moved
