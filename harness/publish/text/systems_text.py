"""Sentences about a comparison between systems: its pairs (exploratory readings), its hypotheses with what decides
each, and the claim of superiority a confirmatory, supported hypothesis allows, with its scope
(docs/comparing-systems.md)."""

from pathlib import Path
from typing import Any

from harness.publish.text.embedding_words import pair_models, run_embedding, several_fixtures, with_model
from harness.publish.text.report_text import SPLIT_LABELS, interval, metric_label, p_value, signed, verdict
from harness.typed_commands import shown, validator_command

DIRECTION_WORDS = {"a_greater": "higher", "a_less": "lower", "two_sided": "different"}
TEST_WORDS = {"randomization": "paired randomization test", "t_test": "paired t-test"}
SYSTEMS_DOES_NOT = (
    "the same difference on other datasets or domains, other subsets of the dataset, other fixtures, embedding "
    "models or configurations of either system",
    "a confirmed difference in any metric or pair other than a confirmatory hypothesis's: every other pair is "
    "exploratory (read with Holm's adjustment over every pair of the file, and chosen after looking)",
    "why the difference arises, or that it would hold for another version of either system")


ATTESTED_RECORD = "on the publisher's attested held-out record"


def status_words(status: str) -> str:
    """A pair's or hypothesis's status; a confirmatory one says what it rests on: the held-out record and the
    ledger, both the publisher's attested word, which no reader can recompute."""
    return f"confirmatory, {ATTESTED_RECORD}" if status == "confirmatory" else status


def _system(document: dict[str, Any], run_name: str) -> str:
    run = next(r for r in document["runs"] if r["name"] == run_name)
    return f"{run['system']['name']} {run['system']['version']}"


def runs_line(document: dict[str, Any]) -> str:
    """Each run's system and arms, and its embedding when the runs read several fixtures."""
    return "; ".join(f"{run['name']} = {run['system']['name']} {run['system']['version']} "
                     f"({', '.join(run['modes'])}{', frozen' if run['freeze'] else ''}"
                     f"{run_embedding(document, run)})" for run in document["runs"])


def fixtures_line(document: dict[str, Any]) -> str | None:
    """The comparison's sentence about its fixtures when its runs read several (they differ in embedding)."""
    return str(document["fixtures"]) if several_fixtures(document) else None


def _hypotheses_word(count: int) -> str:
    return f"{count} hypothes{'is' if count == 1 else 'es'}"


def deciding_sentence(family: dict[str, Any], result: dict[str, Any]) -> str:
    """Which statistic decides a confirmatory hypothesis, and that the bootstrap interval beside it does not."""
    count = len(family["members"])
    alone = " (a family of one: unadjusted)" if count == 1 else ""
    return (f"Decided by the declared test's {result['sided']}-sided p-value, Holm-adjusted over the family of "
            f"{_hypotheses_word(count)} declared at the freeze of {family['declared_by']}{alone}: \"supported\" when "
            f"it is below \u03b1 = {result['alpha']} and the difference lies in the declared direction; the 95% "
            "bootstrap interval is descriptive and decides nothing, so an interval that excludes 0 beside \"not "
            "supported\" is no contradiction.")


def _outcome(result: dict[str, Any]) -> str:
    if result["supported"]:
        return "supported"
    why = ([] if result["significant"] else [f"the adjusted p is not below \u03b1 = {result['alpha']}"]) + (
        [] if result["in_declared_direction"] else ["the difference is not in the declared direction"])
    return f"not supported ({'; '.join(why)})"


def hypothesis_line(document: dict[str, Any], family: dict[str, Any], number: int) -> str:
    """One member of a family: its declaration, status and, when confirmatory, its result and what decides it."""
    member = family["members"][number]
    declared = member["declaration"]
    head = (f"declared in the freeze of {family['declared_by']} ({number + 1} of "
            f"{_hypotheses_word(len(family['members']))}, family-wise \u03b1 = {family['alpha']}): "
            f"\"{declared['statement']}\" against {declared['b']['system']['name']} "
            f"{declared['b']['system']['version']} on {metric_label(declared['metric'])}")
    if member["status"] == "exploratory":
        return (f"{head}, {declared['sided']}-sided {TEST_WORDS[declared['test']]}: exploratory "
                f"({member['reason']})")
    result, pair = member["result"], member["pair"]
    stats = _pair_statistics(document, pair, result["metric"])
    return (f"{head}: confirmatory ({ATTESTED_RECORD}), {with_model(document, pair['a'])} \u2212 "
            f"{with_model(document, pair['b'])} = "
            f"{signed(result['mean_difference'])}, 95% CI "
            f"{interval(stats['ci_low'], stats['ci_high'], sign=True)}; {result['test_ran']}, p = "
            f"{p_value(result['p_value'])}, Holm-adjusted over the family p = {p_value(result['holm_p_value'])}: "
            f"{_outcome(result)}. {deciding_sentence(family, result)}")


def hypothesis_lines(document: dict[str, Any]) -> list[str]:
    return [hypothesis_line(document, family, number) for family in document["hypotheses"]
            for number in range(len(family["members"]))]


def _pair_statistics(document: dict[str, Any], pair: dict[str, str], metric: str) -> dict[str, Any]:
    comparison = next(c for c in document["comparisons"] if (c["a"], c["b"]) == (pair["a"], pair["b"]))
    stats: dict[str, Any] = comparison["metrics"][metric]
    return stats


def pair_verdict(document: dict[str, Any], comparison: dict[str, Any]) -> str:
    """One pair's nDCG@10 reading, labelled exploratory: Holm over every pair of the file decides no hypothesis."""
    count = len(document["comparisons"])
    reading = (f"{verdict(comparison, document['split'])}; Holm over every pair of this file ({count}): an "
               "exploratory reading")
    models = pair_models(document, comparison)
    reading += "" if models is None else f"; embeddings {models}"
    if comparison["status"] == "confirmatory":
        return f"{reading}; the hypothesis declared on this pair is decided by its own declared test (below)"
    return reading


def superiority_claims(document: dict[str, Any]) -> list[str]:
    """The claim each confirmatory, supported hypothesis allows, with its scope."""
    return [claim for family in document["hypotheses"] for member in family["members"]
            if (claim := superiority_claim(document, family, member))]


def superiority_claim(document: dict[str, Any], family: dict[str, Any], member: dict[str, Any]) -> str | None:
    """The claim a confirmatory, supported hypothesis allows, with its scope; None for any other."""
    result = member["result"]
    if member["status"] != "confirmatory" or not result["supported"]:
        return None
    pair = member["pair"]
    stats = _pair_statistics(document, pair, result["metric"])
    a_run, b_run = pair["a"].split("/")[0], pair["b"].split("/")[0]
    fixtures = ("these fixtures (the same documents, queries and judgements, embedded by each arm's model)"
                if several_fixtures(document) else "this fixture")
    return (f"On the {document['query_count']} held-out queries of the dataset, with {fixtures} and these frozen "
            f"configurations, {with_model(document, pair['a'])} ({_system(document, a_run)}) scores "
            f"{DIRECTION_WORDS[member['declaration']['direction']]} {metric_label(result['metric'])} than "
            f"{with_model(document, pair['b'])} ({_system(document, b_run)}): {signed(result['mean_difference'])}, "
            "95% CI "
            f"{interval(stats['ci_low'], stats['ci_high'], sign=True)} (descriptive), {result['test_ran']}, p = "
            f"{p_value(result['p_value'])}, Holm-adjusted over the family of "
            f"{_hypotheses_word(len(family['members']))} p = {p_value(result['holm_p_value'])} (\u03b1 = "
            f"{result['alpha']}), a hypothesis declared at the freeze of {family['declared_by']} before either "
            f"held-out run, {ATTESTED_RECORD}.")


def systems_summary(path: Path, document: dict[str, Any], moved: Path | None) -> list[str]:
    """What `compare --run` prints."""
    checked = ("inputs ELIGIBLE under the validator" if document["inputs_validation"]["validated"]
               else "inputs NOT validated (--no-validate)")
    lines = [f"comparison between systems {shown(path)}: {SPLIT_LABELS[document['split']]}, {document['query_count']} "
             f"queries, {checked}", f"  runs: {runs_line(document)}", f"  scope: {document['scope']}"]
    fixtures = fixtures_line(document)
    lines += [] if fixtures is None else [f"  fixtures: {fixtures}"]
    lines += [f"  [{c['status']}] {pair_verdict(document, c)}" for c in document["comparisons"]]
    lines += [f"  hypothesis {line}" for line in hypothesis_lines(document)]
    lines += [f"  claim: {claim}" for claim in superiority_claims(document)]
    if moved is not None:
        lines.append(f"  the earlier comparison was moved to {shown(moved)}")
    lines.append(f"check it independently: {validator_command('--comparison', shown(path))}")
    return lines
