"""comparison.experiment: a comparison's inputs are runs of one experiment. One fixture digest, one set of judgements
(every row of every input has the same qrels for the same query), one system identity and store digest, and one
freeze (held-out and all-query runs each under the same freeze; calibration runs under none, or the same one).
Read from the inputs' own receipts and rows, whatever directories they came from."""

from typing import Any

from ..core.report import Report
from .comparison_inputs import Input

HELD_OUT = ("heldout", "all")


def _facets(aggregate: dict[str, Any]) -> dict[str, Any]:
    receipt = aggregate.get("receipt", {})
    freeze = receipt.get("freeze")
    return {"fixture_sha256": receipt.get("corpus", {}).get("fixture_sha256"), "system": receipt.get("system"),
            "store_sha256": receipt.get("store", {}).get("store_sha256"),
            "freeze_sha256": freeze.get("sha256") if isinstance(freeze, dict) else None}


def check_experiment(split: str, loaded: dict[str, Input], report: Report) -> None:
    """`loaded`: mode -> its input (with its judgements when its rows parsed)."""
    problems = []
    modes = list(loaded)
    facets = {mode: _facets(entry.aggregate) for mode, entry in loaded.items()}
    first = modes[0]
    for mode in modes[1:]:
        differing = sorted(name for name, value in facets[first].items() if facets[mode][name] != value)
        if differing:
            problems.append(f"{first} and {mode} differ in {', '.join(differing)}")
    if split in HELD_OUT:
        unfrozen = [mode for mode in modes if facets[mode]["freeze_sha256"] is None]
        if unfrozen:
            problems.append(f"{', '.join(unfrozen)}: a {split} receipt that names no freeze")
    judged = {mode: entry.judged for mode, entry in loaded.items() if entry.rows is not None}
    if judged:
        reference_mode, reference = next(iter(judged.items()))
        for mode, judgements in judged.items():
            differing_queries = sorted(str(q) for q in reference.keys() | judgements.keys()
                                       if reference.get(q) != judgements.get(q))
            if differing_queries:
                problems.append(f"{reference_mode} and {mode} judge queries {differing_queries[:3]} differently")
    report.expect("comparison.experiment", not problems, "the inputs are one experiment: one fixture, the same "
                  "judgements for every query, one system identity and store, one freeze", "one experiment",
                  problems[:4])
