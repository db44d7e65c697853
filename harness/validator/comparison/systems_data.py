"""The data of a comparison between systems whose runs read several fixtures: fixtures compared are those that hold the
same dataset content (the contract, the archive, the documents', queries' and judgements' digests by their definitions,
the counts; with the receipts' split rule and metric conventions) and differ only in their embedding and text profile.

Read three ways, each its own: `data_differences` from two receipts (systems.experiment), `fixtures_sentence` from the
runs' entries as the comparison must state it (systems.experiment), and `check_systems_data` from what this
validator's full validation of each arm read of its fixture, the digests recomputed there from the fixture's own
documents, queries and judgements (systems.data): never from the comparison file's word."""

from collections.abc import Mapping
from typing import Any

from ..core.report import Report
from .systems_inputs import Loaded

DIGESTS = {"documents digest": "documents", "queries digest": "queries", "judgements (qrels) digest": "qrels"}


def _at(value: Any, *keys: str) -> Any:
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _facets(receipt: dict[str, Any]) -> dict[str, Any]:
    corpus = _at(receipt, "corpus")
    return {"contract": _at(corpus, "contract"), "archive": _at(corpus, "source", "archive_sha256"),
            **{facet: _at(corpus, "payload_hashes", key) for facet, key in DIGESTS.items()},
            "digests' definitions": {key: _at(corpus, "payload_hashes", key)
                                     for key in ("canonical_json", "definitions")},
            "counts": _at(corpus, "counts"),
            "split rule": {key: _at(receipt, "split", key) for key in ("algorithm", "calibration_count",
                                                                       "total_count")},
            "metric conventions": _at(receipt, "measures")}


def data_differences(first: dict[str, Any], other: dict[str, Any]) -> list[str]:
    """The facets of the data in which two receipts differ, each with both values; none for one fixture's."""
    if _at(first, "corpus", "fixture_sha256") == _at(other, "corpus", "fixture_sha256"):
        return []
    mine, theirs = _facets(first), _facets(other)
    return [f"the {facet}: {value!r} against {theirs[facet]!r}" for facet, value in mine.items()
            if theirs[facet] != value]


def fixtures_sentence(runs: list[dict[str, Any]]) -> str:
    """What a comparison must say of its fixtures, from its runs' entries (held to their receipts by
    systems.inputs)."""
    fixtures = list(dict.fromkeys(run["fixture"]["sha256"] for run in runs))
    if len(fixtures) == 1:
        embedding = runs[0]["embedding"]
        return (f"every run read one fixture ({fixtures[0]}), so every arm has the same embedding "
                f"({embedding['model']}, identity {embedding['identity_sha256']})")
    differing = [word for word, values in (
        ("embedding", {run["embedding"]["identity_sha256"] for run in runs}),
        ("text profile", {run["fixture"]["profile"] for run in runs})) if len(values) > 1]
    what = " and ".join(differing) or "vectors (under one embedding identity and text profile)"
    named = "; ".join(f"{run['name']}: {run['embedding']['model']} (identity {run['embedding']['identity_sha256']}, "
                      f"text profile {run['fixture']['profile']})" for run in runs)
    return (f"the runs read {len(fixtures)} fixtures that hold the same documents, queries and judgements and differ "
            f"in their {what}: {named}; so the arms of runs on different fixtures differ in their {what}, besides "
            "any difference of system or configuration")


def check_systems_data(document: dict[str, Any], loaded: Loaded, verdicts: Mapping[str, Report],
                       report: Report) -> None:
    """Each arm's fixture as this validator read it for that arm (its verdict's `fixture_content`): the receipt's
    fixture, holding the documents, queries and judgements the comparison records, under the same contract as every
    other arm's."""
    problems: list[str] = []
    wanted = {key: document["content"][key] for key in DIGESTS.values()}
    first: tuple[str, dict[str, Any]] | None = None
    for label, arm in loaded.arms.items():
        read = verdicts[label].notes.get("fixture_content") if label in verdicts else None
        if not isinstance(read, dict):
            problems.append(f"{label}: its fixture was not read by its validation (see its corpus.fixture check)")
            continue
        if read.get("fixture_sha256") != _at(arm.receipt, "corpus", "fixture_sha256"):
            problems.append(f"{label}: its validation read the fixture {read.get('fixture_sha256')}, the receipt names "
                            f"{_at(arm.receipt, 'corpus', 'fixture_sha256')}")
        found = {key: read.get(key) for key in DIGESTS.values()}
        problems += [f"{label}: its fixture {read.get('fixture_sha256')} holds {key} {found[key]}, the comparison "
                     f"records {wanted[key]}" for key in DIGESTS.values() if found[key] != wanted[key]]
        if first is not None and read.get("contract") != first[1].get("contract"):
            problems.append(f"{label}: its fixture's contract is {read.get('contract')!r}, {first[0]}'s "
                            f"{first[1].get('contract')!r}")
        first = first or (label, read)
    report.expect("systems.data", not problems, "every run's fixture, as this validator read it, holds the documents, "
                  "queries and judgements the comparison records (each digest recomputed from the fixture), under one "
                  "contract: runs on several fixtures differ in their embedding and text profile only",
                  "the same data", problems[:4])
