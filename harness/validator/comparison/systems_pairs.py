"""The pairs of arms a comparison between systems holds, and the status of each hypothesis declared at a freeze, as
docs/comparing-systems.md states them, recomputed from the runs (their modes, chosen modes, freeze records) and the
receipts' start times.

A freeze record declares a family of hypotheses in `hypotheses`; a record frozen before families holds one in
`hypothesis`, read here as a family of one: its alpha the family's, its member tested two-sided, as it was declared.

Pairs: without a baseline, each later run's arms against each earlier run's, with the same mode or when either run
was given a chosen mode or is a run file's (mode run_file); with one, each other run's arms against the baseline's. A
declared hypothesis's pair (both arms in the comparison) is oriented as declared where the rule gives it, and appended
after the rule's pairs where it does not.
"""

import re
from dataclasses import dataclass
from typing import Any

from .comparison_inputs import Input
from .systems_inputs import Run

Pair = tuple[str, str]  # (a, b): the difference a - b
TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")
CONFIRMATORY_REASON = ("declared at the freeze before either arm's run started, with no earlier held-out look at the "
                       "dataset before the declaration as both arms' receipts attest it (the publisher's held-out "
                       "record), and tested on the held-out split as declared")
HELD_OUT_ONLY = "a hypothesis is tested on the held-out split only"
RUN_FILE = "run_file"


def _one_arm(run: dict[str, Any]) -> bool:
    """A run given one mode, or a run file's (its one mode runs no lane): its arm pairs with every arm."""
    return run["mode_choice"] is not None or list(run["modes"]) == [RUN_FILE]


def _between(later: dict[str, Any], earlier: dict[str, Any]) -> list[Pair]:
    chosen = _one_arm(later) or _one_arm(earlier)
    return [(f"{later['name']}/{a}", f"{earlier['name']}/{b}") for a in later["modes"] for b in earlier["modes"]
            if a == b or chosen]


def rule_pairs(runs: list[dict[str, Any]], baseline: str | None) -> list[Pair]:
    """The pairs the rule gives for the comparison's `runs` entries (name, modes in mode order, mode_choice)."""
    if baseline is None:
        return [pair for j in range(1, len(runs)) for i in range(j) for pair in _between(runs[j], runs[i])]
    base = [run for run in runs if run["name"] == baseline]
    return [pair for run in runs if run["name"] != baseline for b in base for pair in _between(run, b)]


@dataclass(frozen=True)
class Hypothesis:
    """A declared hypothesis as the comparison must state it (its result aside)."""

    declared_by: Run
    declaration: dict[str, Any]
    status: str
    reason: str
    pair: Pair | None


@dataclass(frozen=True)
class Family:
    """The hypotheses one run's freeze record declares: the field they were read from, the family-wise alpha."""

    declared_by: Run
    field: str
    alpha: float
    members: list[Hypothesis]


def declared_family(record: dict[str, Any]) -> tuple[str, float, list[dict[str, Any]]] | None:
    """(field, alpha, members) of what `record` declares; None when it declares nothing."""
    family = record.get("hypotheses")
    if isinstance(family, dict):
        return "hypotheses", family["alpha"], list(family["members"])
    single = record.get("hypothesis")
    if not isinstance(single, dict):
        return None
    member = {key: value for key, value in single.items() if key != "alpha"}
    member["sided"] = "two"
    return "hypothesis", single["alpha"], [member]


def _not_after(label: str, arm: Input, created_at: str) -> str | None:
    started = arm.receipt.get("run", {}).get("started_at")
    if isinstance(started, str) and TIMESTAMP.fullmatch(started) and started > created_at:
        return None
    return f"{label} started at {started}, not after the hypothesis was declared at {created_at}"


def looks_dated(blocks: list[tuple[dict[str, Any], str]]) -> tuple[int, str]:
    """Held-out looks at the dataset each receipt's block dates no later than its time: for each record id the
    largest count any block gives, summed over records; with the dataset's name."""
    by_record: dict[Any, int] = {}
    dataset = "the dataset"
    for looks, until in blocks:
        dataset = looks["dataset"]["name"]
        count = len([when for when in looks["earlier_looks_at"] if when <= until])
        by_record[looks["record_id"]] = max(count, by_record.get(looks["record_id"], 0))
    return sum(by_record.values()), dataset


def _looked(arms: list[tuple[str, Input]], created_at: str) -> str | None:
    """The earlier looks at the dataset the arms' receipts date at or before the declaration, each record once."""
    blocks = []
    for label, arm in arms:
        looks = arm.receipt.get("heldout_looks")
        if not isinstance(looks, dict):
            return f"{label}'s receipt names no held-out record, so no earlier look can be ruled out"
        blocks.append((looks, created_at))
    total, dataset = looks_dated(blocks)
    if total == 0:
        return None
    return (f"{total} earlier held-out look{'' if total == 1 else 's'} at {dataset} before the declaration at "
            f"{created_at}, as the arms' receipts attest")


def _hypothesis(run: Run, declaration: dict[str, Any], runs: list[Run], arms: dict[str, Input],
                split: str) -> Hypothesis:
    assert run.freeze is not None
    a_label = f"{run.name}/{declaration['a']['mode']}"
    b_mode, b_digest = declaration["b"]["mode"], declaration["b"]["freeze_sha256"]
    b_run = next((other for other in runs if other is not run and other.freeze_sha256 == b_digest
                  and f"{other.name}/{b_mode}" in arms), None)
    b_label = None if b_run is None else f"{b_run.name}/{b_mode}"
    pair = (a_label, b_label) if a_label in arms and b_label is not None else None
    if split != "heldout":
        reason = HELD_OUT_ONLY
    elif a_label not in arms:
        reason = f"the declaring run {run.name} has no arm in mode {declaration['a']['mode']}"
    elif b_label is None:
        reason = f"no other run here was frozen as {b_digest} with an arm in mode {b_mode}"
    else:
        created = run.freeze["created_at"]
        late = [found for label in (a_label, b_label) if (found := _not_after(label, arms[label], created)) is not None]
        seen = _looked([(a_label, arms[a_label]), (b_label, arms[b_label])], created)
        reason = late[0] if late else seen if seen is not None else CONFIRMATORY_REASON
    status = "confirmatory" if reason == CONFIRMATORY_REASON else "exploratory"
    return Hypothesis(run, declaration, status, reason, pair)


def hypotheses(runs: list[Run], arms: dict[str, Input], split: str) -> list[Family]:
    """One family per run whose freeze record declares hypotheses, runs in order, members as declared."""
    families = []
    for run in runs:
        declared = None if run.freeze is None else declared_family(run.freeze)
        if declared is not None:
            field, alpha, members = declared
            families.append(Family(run, field, alpha, [_hypothesis(run, m, runs, arms, split) for m in members]))
    return families


def expected_pairs(runs: list[dict[str, Any]], baseline: str | None, declared: list[Family]) -> list[Pair]:
    pairs = rule_pairs(runs, baseline)
    for hypothesis in (member for family in declared for member in family.members):
        if hypothesis.pair is None:
            continue
        a, b = hypothesis.pair
        if (b, a) in pairs:
            pairs[pairs.index((b, a))] = (a, b)
        elif (a, b) not in pairs:
            pairs.append((a, b))
    return pairs
