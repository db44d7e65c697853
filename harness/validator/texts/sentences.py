"""The sentences of a text that state results, each read by its pattern and held to its artifact: a pair's verdict,
a hypothesis and its result, a claim of superiority, the headline's reading, the short lists, a heading's or
paragraph's query count, the comparison's procedure. A sentence with a figure no pattern reads is not checked, and
said so."""

import re
from dataclasses import dataclass
from typing import Any

from .facts import Facts
from .figures import Tally
from .labels import LONG, metric_of, pair_of, split_of
from .trials import TRIALS, check_trials_text

SPLIT = r"(?P<split>held-out|calibration|all queries)"
CI = r"95% CI \[(?P<lo>\S+), (?P<hi>\S+)\]"
VERDICT = re.compile(r"^(?:\[(?P<status>confirmatory|exploratory)[^\]]*\] )?(?P<pair>.+?) on " + SPLIT
                     + r": (?P<mean>\S+) nDCG@10, " + CI + r", p = (?P<p>\S+) \(randomization; t-test (?P<t>\S+)\), "
                     r"Holm-adjusted p = (?P<holm>\S+): (?P<called>significant|not significant) after Holm "
                     r"\(\u03b1 = 0\.05\)(?:; Holm over every pair of this file \((?P<count>\d+)\))?")
SHORT_VERDICT = re.compile(r"^(?P<pair>.+?): (?P<mean>\S+) nDCG@10, " + CI + r", Holm-adjusted p = (?P<holm>\S+): "
                           r"(?P<called>significant|not significant) after Holm$")
HYPOTHESIS = re.compile(r"^(?:Hypothesis )?declared in the freeze of (?P<by>.+?) \((?P<i>\d+) of (?P<n>\d+) "
                        r"hypothes[ie]s, family-wise \u03b1 = (?P<alpha>[\d.]+)\): .* on (?P<metric>\S+?): "
                        r"(?P<status>confirmatory|exploratory)(?P<rest>.*)$")
RESULT = re.compile(r"^(?: \([^)]*\))?, (?P<pair>.+?) = (?P<mean>\S+), " + CI + r"; (?P<test>.+?), p = (?P<p>\S+), "
                    r"Holm-adjusted over the family p = (?P<holm>\S+): (?P<outcome>supported|not supported)")
CLAIM = re.compile(r"^On the (?P<n>\d+) held-out queries of the dataset, .*? scores (?:higher|lower|different) "
                   r"(?P<metric>\S+) than .*?: (?P<mean>\S+), " + CI + r" \(descriptive\), (?P<test>.+?), p = "
                   r"(?P<p>\S+), Holm-adjusted over the family of (?P<count>\d+) hypothes[ie]s p = (?P<holm>\S+) "
                   r"\(\u03b1 = (?P<alpha>[\d.]+)\), a hypothesis declared at the freeze of (?P<by>.+?) before")
HEADLINE = re.compile(r"^On " + SPLIT + r" \((?P<n>\d+) queries\), (?P<leader>.+?nDCG@10 (?:\(\S+\)|\S+?))\."
                      r"(?P<rest>(?: .*)?)$")
LEADERS = (re.compile(r"^the one mode, (?P<modes>\S+), scores nDCG@10 (?P<value>\S+)$"),
           re.compile(r"^(?P<modes>\S+) has the highest nDCG@10 \((?P<value>\S+)\)$"),
           re.compile(r"^(?P<modes>.+) share the highest nDCG@10 \((?P<value>\S+)\)$"))
SIGNIFICANT = re.compile(r"Of the paired differences in nDCG@10, (?P<pairs>.+?) (?:is|are) significant after Holm")
SHORT = re.compile(r"^(?P<mode>\S+) (?P<split>calibration|heldout|all): (?P<short>\d+) of (?P<n>\d+) queries returned "
                   r"fewer than (?P<k>\d+) results(?: \((?P<failed>\d+) of them failed, with none\))?$")
EVERY = re.compile(r"^Every query of every run here returned (?P<k>[\d or]+) results \(top_k\)\.$")
OVERLAP = re.compile(r"^The all-query split holds every test query, the (?P<n>\d+) calibration queries among them")
COUNT = re.compile(r"^(?:(?P<split>held-out|calibration|all queries), )?(?P<n>\d+) queries\. Runs: ")
PROCEDURE = re.compile(r"^(?:Paired over (?P<n>\d+) queries; seed|Seed) (?P<seed>\d+), (?P<resamples>\d+) bootstrap "
                       r"resamples, (?P<permutations>\d+) sign-flip permutations")
NOT_FIGURES = re.compile(r"\w*@\d+|\b95%|\S+\.(?:json|jsonl|csv|tex|zip)\b|<[^>]*>|\u03b1 = 0\.05")


@dataclass
class Place:
    """Where a sentence is: its file's tally, line, section (the last second-level heading) and split."""

    tally: Tally
    line: int
    section: str
    split: str | None


def has_figure(text: str) -> bool:
    return bool(re.search(r"\d", NOT_FIGURES.sub("", text)))


def _values(tally: Tally, place: Place, what: str, found: re.Match[str], stats: dict[str, Any], source: str,
            fields: dict[str, Any]) -> None:
    tally.compare(place.line, what, [found.group(k) for k in fields], list(fields.values()), source)
    del stats


def _pair(place: Place, facts: Facts, found: re.Match[str], split: str | None) -> None:
    tally = place.tally
    pair = pair_of(found["pair"])
    located = None if pair is None else facts.pair(split, *pair)
    if located is None:
        tally.missing(place.line, f"the verdict on {found['pair']!r} on {split}")
        return
    comparison, source = located
    stats = comparison["metrics"]["ndcg_at_10"]
    fields = {"mean": stats["mean_difference"], "lo": stats["ci_low"], "hi": stats["ci_high"],
              "holm": stats["holm_p_value"]}
    if "p" in found.groupdict():
        fields.update({"p": stats["randomization"]["p_value"], "t": stats["t_test"]["p_value"]})
    _values(tally, place, f"the verdict on {found['pair']} on {split}", found, stats, source, fields)
    called = "significant" if stats["significant_after_holm"] else "not significant"
    tally.word(place.line, f"the verdict on {found['pair']}", found["called"], called, source)
    if found.groupdict().get("status"):
        tally.word(place.line, f"the tag of {found['pair']}", found["status"], comparison["status"], source)
    if found.groupdict().get("count"):
        document = facts.systems.get(split or "") or {"comparisons": []}
        tally.compare(place.line, "the pairs of the file", [found["count"]], [len(document["comparisons"])], source)


def _member(facts: Facts, by: str, index: int) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]] | None:
    for document in facts.systems.values():
        for family in document.get("hypotheses", []):
            if family["declared_by"] == by and 0 <= index < len(family["members"]):
                return document, family, family["members"][index]
    return None


def _hypothesis(place: Place, facts: Facts, found: re.Match[str]) -> None:
    tally = place.tally
    located = _member(facts, found["by"], int(found["i"]) - 1)
    if located is None:
        tally.missing(place.line, f"hypothesis {found['i']} of the freeze of {found['by']}")
        return
    document, family, member = located
    source = f"the {document['split']} systems artifact"
    tally.compare(place.line, "the family's size and alpha", [found["n"], found["alpha"]],
                  [len(family["members"]), family["alpha"]], source)
    tally.word(place.line, "the hypothesis's metric", str(metric_of(found["metric"])),
               member["declaration"]["metric"], source)
    tally.word(place.line, "the hypothesis's status", found["status"], member["status"], source)
    result = RESULT.match(found["rest"])
    if member["status"] != "confirmatory" or result is None:
        if found["status"] == "confirmatory":
            tally.fail(place.line, "a confirmatory hypothesis's result is not in the form the publisher writes")
        return
    stats = _stats(document, member)
    _values(tally, place, f"hypothesis {found['i']} of {found['by']}", result, stats, source,
            {"mean": member["result"]["mean_difference"], "lo": stats["ci_low"], "hi": stats["ci_high"],
             "p": member["result"]["p_value"], "holm": member["result"]["holm_p_value"]})
    tally.word(place.line, "the hypothesis's outcome", result["outcome"],
               "supported" if member["result"]["supported"] else "not supported", source)


def _stats(document: dict[str, Any], member: dict[str, Any]) -> dict[str, Any]:
    pair = member["pair"]
    comparison = next(c for c in document["comparisons"] if (c["a"], c["b"]) == (pair["a"], pair["b"]))
    stats: dict[str, Any] = comparison["metrics"][member["result"]["metric"]]
    return stats


def _claim(place: Place, facts: Facts, found: re.Match[str]) -> None:
    tally = place.tally
    for document in facts.systems.values():
        for family in document.get("hypotheses", []):
            for member in family["members"]:
                result = member.get("result") or {}
                if (family["declared_by"] == found["by"] and member["status"] == "confirmatory"
                        and LONG.get(result.get("metric", "")) == found["metric"]
                        and result.get("test_ran") == found["test"]):
                    stats = _stats(document, member)
                    _values(tally, place, f"the claim of superiority of {found['by']}", found, stats,
                            f"the {document['split']} systems artifact",
                            {"n": document["query_count"], "mean": result["mean_difference"], "lo": stats["ci_low"],
                             "hi": stats["ci_high"], "p": result["p_value"], "count": len(family["members"]),
                             "holm": result["holm_p_value"], "alpha": result["alpha"]})
                    tally.word(place.line, "the claim's hypothesis", "supported",
                               "supported" if result["supported"] else "not supported", "its systems artifact")
                    return
    tally.missing(place.line, f"the claim of superiority declared at the freeze of {found['by']}")


def _headline(place: Place, facts: Facts, found: re.Match[str]) -> None:
    tally, split = place.tally, split_of(found["split"])
    runs = {mode: a for (s, mode), a in facts.aggregates.items() if s == split}
    if not runs:
        tally.missing(place.line, f"the headline's reading of {found['split']}")
        return
    source = f"the {split} aggregates"
    leader = next((m for pattern in LEADERS if (m := pattern.match(found["leader"]))), None)
    if leader is None:
        tally.fail(place.line, f"the headline's reading {found['leader']!r} is not in the form the publisher writes")
        return
    best = max(float(f"{a['metrics']['ndcg_at_10']:.4f}") for a in runs.values())
    top = sorted(m for m, a in runs.items() if float(f"{a['metrics']['ndcg_at_10']:.4f}") == best)
    tally.compare(place.line, "the headline's query count and best nDCG@10", [found["n"], leader["value"]],
                  [next(iter(runs.values()))["row_count"], best], source)
    named = sorted(m.strip() for m in re.split(r", | and ", leader["modes"]))
    tally.word(place.line, "the headline's leading modes", ", ".join(named), ", ".join(top), source)
    comparison = facts.modes.get(split or "")
    if comparison is not None:
        significant = sorted(f"{c['a']} - {c['b']}" for c in comparison["comparisons"]
                             if c["metrics"]["ndcg_at_10"]["significant_after_holm"])
        said = SIGNIFICANT.search(found["rest"])
        shown = sorted(p.strip() for p in said["pairs"].split(", ")) if said else []
        tally.word(place.line, "the headline's significant differences", "; ".join(shown) or "none",
                   "; ".join(significant) or "none", f"the {split} comparison artifact")


def check_sentence(place: Place, facts: Facts, text: str) -> None:
    """One sentence (a paragraph or list item) of a text; not checked when it has a figure no pattern reads."""
    tally = place.tally
    systems = facts.systems.get(place.split or "")
    if found := VERDICT.match(text):
        _pair(place, facts, found, split_of(found["split"]))
    elif found := SHORT_VERDICT.match(text):
        _pair(place, facts, found, place.split)
    elif found := HYPOTHESIS.match(text):
        _hypothesis(place, facts, found)
    elif found := CLAIM.match(text):
        _claim(place, facts, found)
    elif found := HEADLINE.match(text):
        _headline(place, facts, found)
    elif found := SHORT.match(text):
        _short(place, facts, found)
    elif found := EVERY.match(text):
        tops = sorted({a["receipt"]["retrieval"]["top_k"] for a in facts.aggregates.values()})
        tally.word(place.line, "the top_k of every run", found["k"], " or ".join(map(str, tops)), "the aggregates")
    elif found := OVERLAP.match(text):
        counts = sorted({a["receipt"]["split"]["calibration_count"] for a in facts.aggregates.values()})
        tally.compare(place.line, "the calibration count", [found["n"]], counts[:1], "the aggregates' receipts")
    elif (found := COUNT.match(text)) and systems is not None:
        tally.compare(place.line, "the systems comparison's query count", [found["n"]], [systems["query_count"]],
                      f"the {place.split} systems artifact")
        tally.word(place.line, "the comparison's scope", "stated" if f"Scope: {systems['scope']}." in text
                   else "another", "stated", f"the {place.split} systems artifact")
    elif text.startswith("Scope: ") and systems is not None:
        tally.word(place.line, "the comparison's scope", text, f"Scope: {systems['scope']}.", "its systems artifact")
    elif (found := PROCEDURE.match(text)) and (comparison := facts.modes.get(place.split or "")) is not None:
        procedure = comparison["procedure"]
        fields = {"seed": procedure["seed"], "resamples": procedure["bootstrap_resamples"],
                  "permutations": procedure["permutations"]}
        fields = {"n": comparison["query_count"], **fields} if found["n"] else fields
        tally.compare(place.line, "the comparison's procedure", [found[k] for k in fields], list(fields.values()),
                      f"the {place.split} comparison artifact")
    elif found := TRIALS.match(text):
        check_trials_text(tally, place.line, facts, found)
    elif "under contention" in text or "quiet machine" in text or "contention unknown" in text:
        tally.skip("how latency was measured (the run's attested measurement notes)")
    elif text.startswith("Runs: "):
        tally.skip("the runs line of a comparison between systems (names and versions)")
    elif has_figure(text):
        tally.skip(f"the prose of {place.section!r}" if place.section else "the prose before the first section")


def _short(place: Place, facts: Facts, found: re.Match[str]) -> None:
    aggregate = facts.aggregate(found["split"], found["mode"])
    if aggregate is None:
        place.tally.missing(place.line, f"the short lists of {found['mode']} {found['split']}")
        return
    top_k = aggregate["receipt"]["retrieval"]["top_k"]
    short = sum(n for results, n in aggregate["metrics"]["result_count_distribution"].items() if int(results) < top_k)
    expected: list[Any] = [short, aggregate["row_count"], top_k]
    shown = [found["short"], found["n"], found["k"]]
    if found["failed"] or aggregate["metrics"]["failures"]:
        shown.append(found["failed"] or "0")
        expected.append(aggregate["metrics"]["failures"])
    place.tally.compare(place.line, f"the short lists of {found['mode']} {found['split']}", shown, expected,
                        facts.source(found["split"], found["mode"]))
