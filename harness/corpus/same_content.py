"""Whether two fixtures hold the same dataset content, read from a fixture's data or from a receipt's `corpus` block
(each holds `contract`, `source`, `payload_hashes` and `counts`): the contract, the archive, the digests of the
documents, queries and judgements with the definitions they were computed by, and the counts. Two fixtures of the same
content may differ in their embedding and text profile only, so runs on them can be compared
(docs/comparing-systems.md, "What the inputs must share")."""

from collections.abc import Mapping
from typing import Any

# what each facet is called in a refusal, and the payload digest it reads (None: read otherwise)
DIGESTS = {"documents digest": "documents", "queries digest": "queries", "judgements (qrels) digest": "qrels"}


def content(corpus: Mapping[str, Any]) -> dict[str, Any]:
    """The dataset content of a fixture, by facet: what two fixtures must share to be compared."""
    hashes = corpus["payload_hashes"]
    return {"contract": corpus["contract"], "archive": (corpus.get("source") or {}).get("archive_sha256"),
            **{facet: hashes.get(key) for facet, key in DIGESTS.items()},
            "digests' definitions": {key: hashes.get(key) for key in ("canonical_json", "definitions")},
            "counts": corpus["counts"]}


def payload_digests(corpus: Mapping[str, Any]) -> dict[str, str]:
    """The documents', queries' and judgements' digests (`payload_hashes` documents, queries, qrels)."""
    return {key: str(corpus["payload_hashes"][key]) for key in DIGESTS.values()}


def _differences(facet: str, first: Any, other: Any) -> list[str]:
    if isinstance(first, dict) and isinstance(other, dict):
        return [f"the {facet}'s {key}: {first.get(key)!r} against {other.get(key)!r}"
                for key in sorted(first.keys() | other.keys(), key=str) if first.get(key) != other.get(key)]
    return [f"the {facet}: {first!r} against {other!r}"]


def content_differences(first: Mapping[str, Any], other: Mapping[str, Any]) -> list[str]:
    """Each facet of the dataset content in which two corpus blocks differ, with both values (first's, then
    other's); empty when they hold the same content."""
    mine, theirs = content(first), content(other)
    return [line for facet, value in mine.items() if theirs[facet] != value
            for line in _differences(facet, value, theirs[facet])]
