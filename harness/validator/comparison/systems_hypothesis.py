"""systems.hypothesis: every family of hypotheses a run's freeze record declares is listed (runs in order) with its
field, alpha and adjustment, each member's declaration as the family states it, its status, reason and pair as the
rules give them, and, when confirmatory, its result recomputed: the declared test's unadjusted p-value of the pair's
difference on the declared metric (one-sided in the declared direction, or two-sided, as declared), Holm's step-down
adjustment over the family's declared members (a member not confirmatory here, or without a p-value, counting as
p = 1), read at the family's alpha and in the declared direction. Every pair's status is confirmatory exactly when it
is a confirmatory hypothesis's."""

from typing import Any

from ..core.report import Report
from . import paired_stats
from .comparison_inputs import Values
from .comparison_stats import TIE_MARGIN, close
from .systems_pairs import Family, Hypothesis

RELATIONS = {"a_greater": ">", "a_less": "<"}
TEST_WORDS = {"randomization": "paired randomization test", "t_test": "paired t-test"}
CLOSE_KEYS = ("mean_difference", "p_value", "holm_p_value")


def _differences(hypothesis: Hypothesis, values: Values) -> list[float]:
    assert hypothesis.pair is not None
    a, b = hypothesis.pair
    metric = hypothesis.declaration["metric"]
    return [x - y for x, y in zip(values[a][metric], values[b][metric], strict=True)]


def declared_p(declaration: dict[str, Any], differences: list[float], drawn: paired_stats.Sample,
               permutations: int) -> float | None:
    """The declared test's p-value: two-sided, or one-sided toward the declared direction."""
    greater = declaration["direction"] == "a_greater"
    one_sided = declaration["sided"] == "one"
    if declaration["test"] == "randomization":
        if one_sided:
            extreme = paired_stats.sign_flip_directed(differences, drawn, TIE_MARGIN, greater)
        else:
            extreme = paired_stats.sign_flip(differences, drawn, TIE_MARGIN)
        return (extreme + 1) / (permutations + 1)
    t, two_sided = paired_stats.t_test(differences)
    if t is None or not one_sided:
        return two_sided
    return paired_stats.student_one_sided(t, len(differences) - 1, greater)


def _words(declaration: dict[str, Any], pair: tuple[str, str]) -> str:
    relation = RELATIONS[declaration["direction"]] if declaration["sided"] == "one" else "!="
    return f"{declaration['sided']}-sided {TEST_WORDS[declaration['test']]}, H1: {pair[0]} {relation} {pair[1]}"


def family_results(family: Family, values: Values, drawn: paired_stats.Sample,
                   permutations: int) -> list[dict[str, Any] | None]:
    """Each member's result (None unless confirmatory), Holm-adjusted over all of the family's members."""
    tested = [member.status == "confirmatory" for member in family.members]
    differences = [_differences(m, values) if t else [] for m, t in zip(family.members, tested, strict=True)]
    p_values = [declared_p(m.declaration, d, drawn, permutations) if t else None
                for m, d, t in zip(family.members, differences, tested, strict=True)]
    adjusted = paired_stats.holm([1.0 if p is None else p for p in p_values])
    results: list[dict[str, Any] | None] = []
    for member, t, d, p, holm_p in zip(family.members, tested, differences, p_values, adjusted, strict=True):
        if not t:
            results.append(None)
            continue
        assert member.pair is not None
        declared, mean = member.declaration, paired_stats.exact_mean(d)
        decided = None if p is None else holm_p
        significant = decided is not None and decided < family.alpha
        direction = {"a_greater": mean > 0, "a_less": mean < 0, "two_sided": True}[declared["direction"]]
        results.append({"metric": declared["metric"], "test": declared["test"], "sided": declared["sided"],
                        "test_ran": _words(declared, member.pair), "mean_difference": mean, "p_value": p,
                        "holm_p_value": decided, "alpha": family.alpha, "significant": significant,
                        "in_declared_direction": direction, "supported": significant and direction})
    return results


def _result_agrees(mine: dict[str, Any] | None, stated: Any) -> bool:
    if mine is None or stated is None:
        return mine is None and stated is None
    exact = [key for key in mine if key not in CLOSE_KEYS]
    return (isinstance(stated, dict) and set(stated) == set(mine) and all(mine[k] == stated[k] for k in exact)
            and all(close(mine[k], stated[k]) for k in CLOSE_KEYS))


def expected_entry(family: Family, values: Values, drawn: paired_stats.Sample, permutations: int) -> dict[str, Any]:
    results = family_results(family, values, drawn, permutations)
    members = [{"declaration": m.declaration, "status": m.status, "reason": m.reason,
                "pair": None if m.pair is None else {"a": m.pair[0], "b": m.pair[1]}, "result": result}
               for m, result in zip(family.members, results, strict=True)]
    return {"declared_by": family.declared_by.name, "freeze_sha256": family.declared_by.freeze_sha256,
            "freeze_field": family.field, "alpha": family.alpha, "adjustment": "holm", "members": members}


def _entry_problems(mine: dict[str, Any], entry: dict[str, Any]) -> list[str]:
    who = f"{mine['declared_by']}'s hypotheses"
    differing = sorted(key for key in mine if key != "members" and mine[key] != entry[key])
    problems = [f"{who} state other {', '.join(differing)}: expected { {key: mine[key] for key in differing} }"
                ] if differing else []
    if len(mine["members"]) != len(entry["members"]):
        return [*problems, f"{who} list {len(entry['members'])} members; the freeze record declares "
                           f"{len(mine['members'])}"]
    for number, (expected, stated) in enumerate(zip(mine["members"], entry["members"], strict=True), start=1):
        wrong = sorted(key for key in expected if key != "result" and expected[key] != stated[key])
        if not _result_agrees(expected["result"], stated["result"]):
            wrong.append("result")
        if wrong:
            problems.append(f"{who}, member {number} (\"{expected['declaration']['statement']}\"), states other "
                            f"{', '.join(wrong)}: expected { {key: expected[key] for key in wrong} }")
    return problems


def _problems(document: dict[str, Any], declared: list[Family], values: Values,
              drawn: paired_stats.Sample) -> list[str]:
    permutations = document["procedure"]["permutations"]
    expected = [expected_entry(family, values, drawn, permutations) for family in declared]
    stated = document["hypotheses"]
    problems = []
    if [e["declared_by"] for e in stated] != [e["declared_by"] for e in expected]:
        problems.append(f"hypotheses listed for {[e['declared_by'] for e in stated]}; the freeze records declare "
                        f"them for {[e['declared_by'] for e in expected]}")
    for mine, entry in zip(expected, stated, strict=False):
        problems += _entry_problems(mine, entry)
    confirmatory = {h.pair for family in declared for h in family.members
                    if h.status == "confirmatory" and h.pair is not None}
    compared = {(c["a"], c["b"]) for c in document["comparisons"]}
    problems += [f"the confirmatory pair {a} - {b} is not compared" for a, b in sorted(confirmatory - compared)]
    for comparison in document["comparisons"]:
        status = "confirmatory" if (comparison["a"], comparison["b"]) in confirmatory else "exploratory"
        if comparison["status"] != status:
            problems.append(f"{comparison['a']} - {comparison['b']} is {comparison['status']}, not {status}")
    return problems


def check_hypotheses(document: dict[str, Any], declared: list[Family], values: Values,
                     drawn: paired_stats.Sample, report: Report) -> None:
    problems = _problems(document, declared, values, drawn)
    report.expect("systems.hypothesis", not problems, "every family of hypotheses a freeze record declares is listed "
                  "with its alpha and each member's declaration, status, reason, pair and result (the declared "
                  "test's p, one- or two-sided, Holm-adjusted over the family) as recomputed, and only a "
                  "confirmatory hypothesis's pair is confirmatory", "the declared hypotheses", problems[:3])
