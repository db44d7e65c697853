"""systems.experiment: what the runs of a comparison between systems must share, read from their own receipts and
rows. One fixture for every run, or fixtures of the same dataset content that differ only in their embedding and text
profile (`systems_data`), and the sentence that says which; the same judgements for every query in every run's rows;
within a run, one fixture, system identity, store and freeze; for the held-out and all-query splits, every run under a
freeze; no run given twice (the same aggregate, or the same run id of the same store, under two runs' labels); and the
scope sentence the split calls for."""

from typing import Any

from ..core.digests import sha256_file
from ..core.report import Report
from .comparison_inputs import Input
from .systems_data import data_differences, fixtures_sentence
from .systems_inputs import Loaded
from .systems_pairs import looks_dated

HELD_OUT = ("heldout", "all")


def _looks_before_freeze(loaded: Loaded) -> tuple[int, str] | None:
    """Held-out looks at the dataset that the arms' receipts date no later than their own run's freeze
    (`looks_dated`). None: an arm without a record or a freeze."""
    blocks = []
    for label, arm in loaded.arms.items():
        looks, freeze = arm.receipt.get("heldout_looks"), loaded.run_of[label].freeze
        if not isinstance(looks, dict) or not isinstance(freeze, dict):
            return None
        blocks.append((looks, str(freeze["created_at"])))
    return looks_dated(blocks)


def scope(split: str, query_count: int, calibration_count: Any, loaded: Loaded) -> str:
    """The one sentence that says what a comparison on `split` covers; on held-out, whether the receipts attest the
    queries unseen before each run's freeze."""
    if split == "calibration":
        return "calibration queries only: the configurations were chosen on them, so every result here is exploratory"
    if split != "heldout":
        return (f"all {query_count} queries, including the {calibration_count} calibration queries the configurations "
                "were chosen on")
    counted = _looks_before_freeze(loaded)
    if counted is None:
        return (f"the {query_count} held-out queries; a run's receipt names no held-out record, so that they were "
                "unseen before the freeze is not attested")
    count, dataset = counted
    if count:
        return (f"the {query_count} held-out queries, not unseen before the freeze: {count} earlier held-out "
                f"look{'s' if count != 1 else ''} at {dataset}, as the publisher's attested held-out record shows")
    return (f"the {query_count} held-out queries, unseen before the freeze as the publisher's attested held-out "
            "record shows")


def _facets(arm: Input) -> dict[str, Any]:
    receipt = arm.receipt
    freeze = receipt.get("freeze")
    return {"fixture_sha256": receipt.get("corpus", {}).get("fixture_sha256"),
            "system": receipt.get("system"), "store_sha256": receipt.get("store", {}).get("store_sha256"),
            "freeze_sha256": freeze.get("sha256") if isinstance(freeze, dict) else None}


def _within_runs(loaded: Loaded, split: str) -> list[str]:
    problems = []
    for run in loaded.runs:
        labels = [label for label, owner in loaded.run_of.items() if owner is run]
        facets = {label: _facets(loaded.arms[label]) for label in labels}
        for label in labels[1:]:
            differing = sorted(k for k, v in facets[labels[0]].items() if facets[label][k] != v)
            if differing:
                problems.append(f"{labels[0]} and {label} differ in {', '.join(differing)}")
        if split in HELD_OUT:
            problems += [f"{label}: a {split} receipt that names no freeze" for label in labels
                         if facets[label]["freeze_sha256"] is None]
    return problems


def _across_runs(loaded: Loaded) -> list[str]:
    problems = []
    arms = list(loaded.arms.items())
    first_label, first = arms[0]
    for label, arm in arms[1:]:
        differences = data_differences(first.receipt, arm.receipt)
        if differences:
            problems.append(f"{first_label} and {label} ran on fixtures of other data: {'; '.join(differences)}")
        if first.rows is not None and arm.rows is not None:
            differing = sorted(str(q) for q in first.judged.keys() | arm.judged.keys()
                               if first.judged.get(q) != arm.judged.get(q))
            if differing:
                problems.append(f"{first_label} and {label} judge queries {differing[:3]} differently")
    seen: dict[Any, str] = {}
    for label, arm in arms:
        ledger_run = (arm.receipt.get("store", {}).get("store_sha256"), arm.receipt.get("run", {}).get("run_id"))
        for key in (sha256_file(arm.aggregate_path), ledger_run):
            if key in seen and loaded.run_of[seen[key]] is not loaded.run_of[label]:
                problems.append(f"{seen[key]} and {label} are one run given twice (the same aggregate, or the same run "
                                "of the same store)")
            seen.setdefault(key, label)
    return problems


def check_systems_experiment(document: dict[str, Any], loaded: Loaded, report: Report) -> None:
    split = document["split"]
    problems = _within_runs(loaded, split) + _across_runs(loaded)
    first = next(iter(loaded.arms.values()))
    calibration_count = first.receipt.get("split", {}).get("calibration_count")
    wanted = scope(split, document["query_count"], calibration_count, loaded)
    if document["scope"] != wanted:
        problems.append(f"the scope reads {document['scope']!r}, not {wanted!r}")
    said = fixtures_sentence(document["runs"])
    if document["fixtures"] != said:
        problems.append(f"the fixtures sentence reads {document['fixtures']!r}, not {said!r}")
    report.expect("systems.experiment", not problems, "the runs share the fixture, or fixtures of the same data that "
                  "differ in their embedding and text profile only, as the comparison says, and every query's "
                  "judgements; each run is one fixture, system, store and freeze; no run is given twice; the scope is "
                  "the split's",
                  "one experiment", problems[:4])
