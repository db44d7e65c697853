"""Hypotheses declared at the freeze, read in a comparison between systems: each declaring run's family, and each
member confirmatory or exploratory, with its pair (docs/comparing-systems.md, "Hypotheses declared at the freeze")."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness.evaluation.comparison.pairing import Arm
from harness.evaluation.comparison.systems_inputs import RunInput
from harness.evaluation.gates.hypothesis_family import declared_family


@dataclass(frozen=True)
class Reading:
    """One declared hypothesis (a member of its run's family) as this comparison reads it."""

    declared_by: RunInput
    declaration: dict[str, Any]
    status: str
    reason: str
    pair: tuple[Arm, Arm] | None  # (a, b) when both arms are in the comparison


@dataclass(frozen=True)
class FamilyReading:
    """The family one run's freeze record declares: the record's field, the family-wise alpha, each member read."""

    declared_by: RunInput
    field: str
    alpha: float
    members: list[Reading]


CONFIRMATORY = ("declared at the freeze before either arm's run started, with no earlier held-out look at the dataset "
                "before the declaration as both arms' receipts attest it (the publisher's held-out record), and tested "
                "on the held-out split as declared")


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def earlier_looks(dated: Sequence[tuple[dict[str, Any], str]]) -> tuple[int, str]:
    """The held-out looks at the dataset that each receipt's `heldout_looks` block dates at or before its time, by any
    configuration: per record the most any block counts (one record counted once), summed over records; with the
    dataset's name."""
    counted: dict[str, int] = {}
    name = "the dataset"
    for block, time in dated:
        name = block["dataset"]["name"]
        seen = sum(at <= time for at in block["earlier_looks_at"])
        counted[block["record_id"]] = max(seen, counted.get(block["record_id"], 0))
    return sum(counted.values()), name


def seen_before(receipts: Sequence[dict[str, Any]], labels: Sequence[str], created: str) -> str | None:
    """Why the arms' receipts do not attest the held-out split unseen before `created` (None when they do)."""
    missing = [label for receipt, label in zip(receipts, labels, strict=True) if receipt.get("heldout_looks") is None]
    if missing:
        return f"{missing[0]}'s receipt names no held-out record, so no earlier look can be ruled out"
    total, name = earlier_looks([(receipt["heldout_looks"], created) for receipt in receipts])
    if not total:
        return None
    return (f"{_plural(total, 'earlier held-out look')} at {name} before the declaration at {created}, as the "
            "arms' receipts attest")


def _arm(run: RunInput, mode: str) -> Arm | None:
    return next((arm for arm in run.arms if arm.mode == mode), None)


def _receipt(run: RunInput, mode: str) -> dict[str, Any]:
    receipt: dict[str, Any] = next(e for e in run.inputs if e.mode == mode).aggregate["receipt"]
    return receipt


def _started(run: RunInput, mode: str) -> str:
    return str(_receipt(run, mode)["run"]["started_at"])


def _read(declaring: RunInput, declared: dict[str, Any], runs: Sequence[RunInput], split: str) -> Reading:
    """The first failing condition of docs/comparing-systems.md as the reason, else confirmatory; the pair whenever
    both arms are in the comparison."""
    assert declaring.freeze is not None
    created = declaring.freeze.record["created_at"]
    a_mode, b_mode, digest = declared["a"]["mode"], declared["b"]["mode"], declared["b"]["freeze_sha256"]
    a = _arm(declaring, a_mode)
    baseline = next((run for run in runs if run is not declaring and run.freeze is not None
                     and run.freeze.record["freeze_sha256"] == digest and _arm(run, b_mode) is not None), None)
    b = None if baseline is None else _arm(baseline, b_mode)
    pair = (a, b) if a is not None and b is not None else None
    if split != "heldout":
        reason = "a hypothesis is tested on the held-out split only"
    elif a is None:
        reason = f"the declaring run {declaring.spec.name} has no arm in mode {a_mode}"
    elif baseline is None or b is None:
        reason = f"no other run here was frozen as {digest} with an arm in mode {b_mode}"
    else:
        late = [f"{arm.label} started at {started}, not after the hypothesis was declared at {created}"
                for arm, run in ((a, declaring), (b, baseline)) if not (started := _started(run, arm.mode)) > created]
        receipts = [_receipt(run, arm.mode) for arm, run in ((a, declaring), (b, baseline))]
        seen = seen_before(receipts, [a.label, b.label], created)
        reason = late[0] if late else seen if seen is not None else CONFIRMATORY
    return Reading(declaring, declared, "confirmatory" if reason == CONFIRMATORY else "exploratory", reason, pair)


def read_hypotheses(runs: Sequence[RunInput], split: str) -> list[FamilyReading]:
    """One family per run whose freeze record declares hypotheses, in run order, its members in declared order."""
    families = []
    for run in runs:
        found = None if run.freeze is None else declared_family(run.freeze.record)
        if found is not None:
            field, family = found
            families.append(FamilyReading(run, field, family["alpha"],
                                          [_read(run, member, runs, split) for member in family["members"]]))
    return families


def with_hypothesis_pairs(pairs: list[tuple[Arm, Arm]],
                          families: Sequence[FamilyReading]) -> list[tuple[Arm, Arm]]:
    """`pairs` with each hypothesis's pair (when both arms are here) oriented as declared (a = the declaring arm),
    appended when absent (families in run order, members in declared order)."""
    result = list(pairs)
    for reading in (member for family in families for member in family.members):
        if reading.pair is None:
            continue
        a, b = reading.pair
        if (b, a) in result:
            result[result.index((b, a))] = (a, b)
        elif (a, b) not in result:
            result.append((a, b))
    return result
