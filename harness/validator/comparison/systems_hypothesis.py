"""systems.hypothesis: every hypothesis a run's freeze record declares is listed (runs in order) with the declaration
unchanged, its status, reason and pair as the rules give them, and, when confirmatory, its result recomputed: the
declared test's unadjusted two-sided p of the pair's difference on the declared metric, read at the declared alpha
and in the declared direction. Every pair's status is confirmatory exactly when it is a confirmatory hypothesis's."""

from typing import Any

from ..core.report import Report
from . import paired_stats
from .comparison_inputs import Values
from .comparison_stats import close, difference
from .systems_pairs import Hypothesis

DIRECTIONS = ("a_greater", "a_less", "two_sided")


def result(hypothesis: Hypothesis, values: Values, drawn: paired_stats.Sample, permutations: int) -> dict[str, Any]:
    declaration = hypothesis.declaration
    assert hypothesis.pair is not None
    a, b = hypothesis.pair
    metric = declaration["metric"]
    mine = difference(values[a][metric], values[b][metric], drawn, permutations)
    p_value = mine["p_value"] if declaration["test"] == "randomization" else mine["t_p"]
    significant = p_value is not None and p_value < declaration["alpha"]
    mean_difference = mine["mean_difference"]
    direction = {"a_greater": mean_difference > 0, "a_less": mean_difference < 0,
                 "two_sided": True}[declaration["direction"]]
    return {"metric": metric, "test": declaration["test"], "alpha": declaration["alpha"],
            "mean_difference": mean_difference, "p_value": p_value, "significant": significant,
            "in_declared_direction": direction, "supported": significant and direction}


def _result_agrees(mine: dict[str, Any] | None, stated: Any) -> bool:
    if mine is None or stated is None:
        return mine is None and stated is None
    exact = [key for key in mine if key not in ("mean_difference", "p_value")]
    return (isinstance(stated, dict) and set(stated) == set(mine) and all(mine[k] == stated[k] for k in exact)
            and close(mine["mean_difference"], stated["mean_difference"])
            and close(mine["p_value"], stated["p_value"]))


def expected_entry(hypothesis: Hypothesis, values: Values, drawn: paired_stats.Sample,
                   permutations: int) -> dict[str, Any]:
    pair = None if hypothesis.pair is None else {"a": hypothesis.pair[0], "b": hypothesis.pair[1]}
    confirmatory = hypothesis.status == "confirmatory"
    return {"declared_by": hypothesis.declared_by.name, "freeze_sha256": hypothesis.declared_by.freeze_sha256,
            "declaration": hypothesis.declaration, "status": hypothesis.status, "reason": hypothesis.reason,
            "pair": pair, "result": result(hypothesis, values, drawn, permutations) if confirmatory else None}


def _problems(document: dict[str, Any], declared: list[Hypothesis], values: Values,
              drawn: paired_stats.Sample) -> list[str]:
    permutations = document["procedure"]["permutations"]
    expected = [expected_entry(h, values, drawn, permutations) for h in declared]
    stated = document["hypotheses"]
    problems = []
    if [e["declared_by"] for e in stated] != [e["declared_by"] for e in expected]:
        problems.append(f"hypotheses listed for {[e['declared_by'] for e in stated]}; the freeze records declare "
                        f"them for {[e['declared_by'] for e in expected]}")
    for mine, entry in zip(expected, stated, strict=False):
        differing = sorted(key for key in mine if key != "result" and mine[key] != entry[key])
        if not _result_agrees(mine["result"], entry["result"]):
            differing.append("result")
        if differing:
            problems.append(f"{mine['declared_by']}'s hypothesis states other {', '.join(differing)}: expected "
                            f"{ {key: mine[key] for key in differing} }")
    confirmatory = {h.pair for h in declared if h.status == "confirmatory" and h.pair is not None}
    compared = {(c["a"], c["b"]) for c in document["comparisons"]}
    problems += [f"the confirmatory pair {a} - {b} is not compared" for a, b in sorted(confirmatory - compared)]
    for comparison in document["comparisons"]:
        status = "confirmatory" if (comparison["a"], comparison["b"]) in confirmatory else "exploratory"
        if comparison["status"] != status:
            problems.append(f"{comparison['a']} - {comparison['b']} is {comparison['status']}, not {status}")
    return problems


def check_hypotheses(document: dict[str, Any], declared: list[Hypothesis], values: Values,
                     drawn: paired_stats.Sample, report: Report) -> None:
    problems = _problems(document, declared, values, drawn)
    report.expect("systems.hypothesis", not problems, "every hypothesis a freeze record declares is listed with its "
                  "declaration, status, reason, pair and result as recomputed, and only a confirmatory hypothesis's "
                  "pair is confirmatory", "the declared hypotheses", problems[:3])
