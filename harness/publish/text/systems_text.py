"""Sentences about a comparison between systems: its pairs, its hypotheses and the one claim of superiority a
confirmatory, supported hypothesis allows, each with its scope (docs/comparing-systems.md)."""

from pathlib import Path
from typing import Any

from harness.publish.text.report_text import METRIC_LABELS, SPLIT_LABELS, interval, p_value, signed, verdict
from harness.typed_commands import shown, validator_command

DIRECTION_WORDS = {"a_greater": "higher", "a_less": "lower", "two_sided": "different"}
TEST_WORDS = {"randomization": "two-sided sign-flip randomization test", "t_test": "two-sided paired t-test"}
SYSTEMS_DOES_NOT = (
    "the same difference on other datasets or domains, other subsets of the dataset, other fixtures, embedding "
    "models or configurations of either system",
    "a confirmed difference in any metric or pair other than a confirmatory hypothesis's: every other pair is "
    "exploratory (read with Holm's adjustment, and chosen after looking)",
    "why the difference arises, or that it would hold for another version of either system")


def _system(document: dict[str, Any], run_name: str) -> str:
    run = next(r for r in document["runs"] if r["name"] == run_name)
    return f"{run['system']['name']} {run['system']['version']}"


def runs_line(document: dict[str, Any]) -> str:
    return "; ".join(f"{run['name']} = {run['system']['name']} {run['system']['version']} "
                     f"({', '.join(run['modes'])}{', frozen' if run['freeze'] else ''})" for run in document["runs"])


def hypothesis_line(hypothesis: dict[str, Any]) -> str:
    declared = hypothesis["declaration"]
    head = (f"declared in the freeze of {hypothesis['declared_by']}: \"{declared['statement']}\" against "
            f"{declared['b']['system']['name']} {declared['b']['system']['version']} on "
            f"{METRIC_LABELS[declared['metric']]}, {TEST_WORDS[declared['test']]}, \u03b1 = {declared['alpha']}")
    if hypothesis["status"] == "exploratory":
        return f"{head}: exploratory ({hypothesis['reason']})"
    result, pair = hypothesis["result"], hypothesis["pair"]
    outcome = ("supported" if result["supported"] else "not supported" + (
        "" if result["significant"] else f" (p is not below \u03b1 = {result['alpha']})")
        + ("" if result["in_declared_direction"] else " (the difference is not in the declared direction)"))
    return (f"{head}: confirmatory, {pair['a']} \u2212 {pair['b']} = {signed(result['mean_difference'])}, "
            f"p = {p_value(result['p_value'])} (unadjusted, the one pre-registered test): {outcome}")


def superiority_claim(document: dict[str, Any], hypothesis: dict[str, Any]) -> str | None:
    """The claim a confirmatory, supported hypothesis allows, with its scope; None for any other."""
    result = hypothesis["result"]
    if hypothesis["status"] != "confirmatory" or not result["supported"]:
        return None
    pair = hypothesis["pair"]
    comparison = next(c for c in document["comparisons"] if (c["a"], c["b"]) == (pair["a"], pair["b"]))
    stats = comparison["metrics"][result["metric"]]
    a_run, b_run = pair["a"].split("/")[0], pair["b"].split("/")[0]
    return (f"On the {document['query_count']} held-out queries of the dataset, with this fixture and these frozen "
            f"configurations, {pair['a']} ({_system(document, a_run)}) scores "
            f"{DIRECTION_WORDS[hypothesis['declaration']['direction']]} {METRIC_LABELS[result['metric']]} than "
            f"{pair['b']} ({_system(document, b_run)}): {signed(result['mean_difference'])}, 95% CI "
            f"{interval(stats['ci_low'], stats['ci_high'], sign=True)}, p = {p_value(result['p_value'])} "
            f"({TEST_WORDS[result['test']]}, \u03b1 = {result['alpha']}), a hypothesis declared at the freeze of "
            f"{hypothesis['declared_by']} before either held-out run.")


def systems_summary(path: Path, document: dict[str, Any], moved: Path | None) -> list[str]:
    """What `compare --run` prints."""
    checked = ("inputs ELIGIBLE under the validator" if document["inputs_validation"]["validated"]
               else "inputs NOT validated (--no-validate)")
    lines = [f"comparison between systems {shown(path)}: {SPLIT_LABELS[document['split']]}, {document['query_count']} "
             f"queries, {checked}", f"  runs: {runs_line(document)}", f"  scope: {document['scope']}"]
    lines += [f"  [{c['status']}] {verdict(c, document['split'])}" for c in document["comparisons"]]
    lines += [f"  hypothesis {hypothesis_line(h)}" for h in document["hypotheses"]]
    claims = [claim for h in document["hypotheses"] if (claim := superiority_claim(document, h))]
    lines += [f"  claim: {claim}" for claim in claims]
    if moved is not None:
        lines.append(f"  the earlier comparison was moved to {shown(moved)}")
    lines.append(f"check it independently: {validator_command('--comparison', shown(path))}")
    return lines
