"""Inputs of one experiment: runs that differ in their mode and nothing else a comparison could mistake for it.

A paired comparison (and an export that writes one qrels file for several runs) is only meaningful over runs of one
corpus fixture, one set of judgements, one system identity and store, and one freeze. These checks read only the
inputs themselves (their receipts and rows), never the directory they came from, so inputs gathered from several
places are held to the same rule.
"""

from collections.abc import Sequence
from typing import Any

from harness.evaluation.comparison.inputs import ModeInput

HELD_OUT_SPLITS = ("heldout", "all")
FIX = ("a comparison pairs runs of one fixture, one set of judgements, one system and store, and one freeze: run "
       "every mode of the split again from the same fixture, system and freeze into one output directory")


def label(entry: ModeInput) -> str:
    return f"{entry.mode} ({entry.aggregate_path})"


def _facets(entry: ModeInput) -> dict[str, Any]:
    receipt = entry.aggregate["receipt"]
    freeze = receipt.get("freeze")
    return {"fixture digest": receipt["corpus"]["fixture_sha256"],
            "system identity": receipt["system"],
            "store digest": receipt["store"]["store_sha256"],
            "freeze digest": freeze["sha256"] if freeze else None}


def _differing_fields(first: Any, other: Any) -> str:
    if isinstance(first, dict) and isinstance(other, dict):
        fields = sorted(k for k in first.keys() | other.keys() if first.get(k) != other.get(k))
        return f"(differing fields: {', '.join(fields)})"
    return f"({first} against {other})"


def judgement_disagreement(inputs: Sequence[ModeInput]) -> str | None:
    """The first query whose judgements (the rows' qrels) differ between inputs, named with the inputs, or None."""
    first = inputs[0]
    for other in inputs[1:]:
        for mine, theirs in zip(first.rows, other.rows, strict=False):
            if mine["query_id"] != theirs["query_id"]:
                return (f"{label(first)} and {label(other)} list different queries at query {mine['query_id']!r} "
                        f"against {theirs['query_id']!r}")
            if mine["qrels"] != theirs["qrels"]:
                return (f"query {mine['query_id']!r} is judged {mine['qrels']} in {label(first)} but "
                        f"{theirs['qrels']} in {label(other)}")
    return None


def experiment_problems(inputs: Sequence[ModeInput], split: str) -> list[str]:
    """What keeps `inputs` (two or more) from being one experiment, each naming what differs and between which."""
    problems = []
    first = inputs[0]
    reference = _facets(first)
    for other in inputs[1:]:
        facets = _facets(other)
        for facet, value in reference.items():
            if facets[facet] != value:
                problems.append(f"the {facet} differs between {label(first)} and {label(other)} "
                                f"{_differing_fields(value, facets[facet])}")
    if split in HELD_OUT_SPLITS:
        unfrozen = [label(entry) for entry in inputs if _facets(entry)["freeze digest"] is None]
        if unfrozen:
            problems.append(f"{', '.join(unfrozen)} record no freeze, which a {split} run must have run under")
    disagreement = judgement_disagreement(inputs)
    if disagreement is not None:
        problems.append(f"the judgements differ: {disagreement}")
    return problems
