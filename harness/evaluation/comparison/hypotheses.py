"""Hypotheses declared at the freeze, read in a comparison between systems: confirmatory or exploratory, and the
declared test's result (docs/comparing-systems.md, "Hypotheses declared at the freeze")."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness.evaluation.comparison.pairing import Arm
from harness.evaluation.comparison.systems_inputs import RunInput


@dataclass(frozen=True)
class Reading:
    """One declared hypothesis as this comparison reads it."""

    declared_by: RunInput
    declaration: dict[str, Any]
    status: str
    reason: str
    pair: tuple[Arm, Arm] | None  # (a, b) when confirmatory


def _arm(run: RunInput, mode: str) -> Arm | None:
    return next((arm for arm in run.arms if arm.mode == mode), None)


def _started_after(runs: Sequence[RunInput], modes: Sequence[str], moment: str) -> bool:
    return all(entry.aggregate["receipt"]["run"]["started_at"] >= moment
               for run, mode in zip(runs, modes, strict=True) for entry in run.inputs if entry.mode == mode)


def _read(declaring: RunInput, runs: Sequence[RunInput], split: str) -> Reading:
    assert declaring.freeze is not None
    declared = declaring.freeze.record["hypothesis"]
    a_mode, b_mode = declared["a"]["mode"], declared["b"]["mode"]

    def exploratory(reason: str) -> Reading:
        return Reading(declaring, declared, "exploratory", reason, None)

    if split != "heldout":
        return exploratory(f"a hypothesis is tested on the held-out split only; this comparison is of {split}")
    a = _arm(declaring, a_mode)
    if a is None:
        return exploratory(f"run {declaring.spec.name} has no {a_mode} arm in this comparison")
    baseline = next((run for run in runs if run is not declaring and run.freeze is not None
                     and run.freeze.record["freeze_sha256"] == declared["b"]["freeze_sha256"]), None)
    if baseline is None:
        return exploratory(f"no run in this comparison is the declared baseline (freeze "
                           f"{declared['b']['freeze_sha256']})")
    b = _arm(baseline, b_mode)
    if b is None:
        return exploratory(f"the baseline run {baseline.spec.name} has no {b_mode} arm in this comparison")
    if not _started_after([declaring, baseline], [a_mode, b_mode], declaring.freeze.record["created_at"]):
        return exploratory(f"a receipt of {a.label} or {b.label} started before the hypothesis was frozen "
                           f"({declaring.freeze.record['created_at']})")
    return Reading(declaring, declared, "confirmatory",
                   f"declared in the freeze of {declaring.spec.name} before either held-out run; {a.label} against "
                   f"{b.label}", (a, b))


def read_hypotheses(runs: Sequence[RunInput], split: str) -> list[Reading]:
    """One reading per run whose freeze record declares a hypothesis, in run order."""
    return [_read(run, runs, split) for run in runs
            if run.freeze is not None and run.freeze.record.get("hypothesis") is not None]


def with_confirmatory(pairs: list[tuple[Arm, Arm]], readings: Sequence[Reading]) -> list[tuple[Arm, Arm]]:
    """`pairs` with each confirmatory pair oriented as declared (a = the declaring arm), appended when absent."""
    result = list(pairs)
    for reading in readings:
        if reading.pair is None:
            continue
        a, b = reading.pair
        if (b, a) in result:
            result[result.index((b, a))] = (a, b)
        elif (a, b) not in result:
            result.append((a, b))
    return result


def result_of(reading: Reading, statistics: dict[str, Any]) -> dict[str, Any]:
    """The declared test's reading of its pair's statistics on the declared metric (unadjusted, two-sided p)."""
    declared = reading.declaration
    metric = statistics[declared["metric"]]
    p = metric["randomization"]["p_value"] if declared["test"] == "randomization" else metric["t_test"]["p_value"]
    difference = metric["mean_difference"]
    direction = {"a_greater": difference > 0, "a_less": difference < 0, "two_sided": True}[declared["direction"]]
    significant = p is not None and p < declared["alpha"]
    return {"metric": declared["metric"], "test": declared["test"], "alpha": declared["alpha"],
            "mean_difference": difference, "p_value": p, "significant": significant,
            "in_declared_direction": direction, "supported": significant and direction}


def hypothesis_record(reading: Reading, statistics: dict[str, Any] | None) -> dict[str, Any]:
    assert reading.declared_by.freeze is not None
    pair = None if reading.pair is None else {"a": reading.pair[0].label, "b": reading.pair[1].label}
    return {"declared_by": reading.declared_by.spec.name,
            "freeze_sha256": reading.declared_by.freeze.record["freeze_sha256"],
            "declaration": reading.declaration, "status": reading.status, "reason": reading.reason, "pair": pair,
            "result": None if statistics is None else result_of(reading, statistics)}
