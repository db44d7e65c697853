"""The fixtures of a comparison between systems: runs on one fixture, or on several that hold the same dataset content
and differ only in their embedding and text profile (docs/comparing-systems.md, "What the inputs must share"). What
a run's receipts say of its fixture and embedding, what keeps two runs' data from being one experiment, and the
sentence the comparison states about its fixtures."""

from collections.abc import Sequence
from typing import Any

from harness.corpus.same_content import content_differences, payload_digests

SAME_CONTENT_FIX = ("runs on two fixtures are compared only when the fixtures hold the same dataset content (they may "
                    "differ in their embedding and text profile only): build each fixture from the same archive "
                    "under the same contract, or compare runs of one fixture")


def fixture_record(receipt: dict[str, Any]) -> dict[str, Any]:
    """A run's fixture, as the comparison records it: its digest and text profile."""
    return {"sha256": receipt["corpus"]["fixture_sha256"], "profile": receipt["profile"]["name"]}


def embedding_record(receipt: dict[str, Any]) -> dict[str, Any]:
    """A run's embedding, as the comparison records it: the model, its identity's digest and the dimensions."""
    embedding = receipt["embedding"]
    return {"model": embedding["model"], "identity_sha256": embedding["identity_sha256"],
            "dimensions": embedding["dimensions"]}


def content_record(receipt: dict[str, Any]) -> dict[str, str]:
    """The documents', queries' and judgements' digests every run's fixture holds."""
    return payload_digests(receipt["corpus"])


def _run_facets(receipt: dict[str, Any]) -> dict[str, Any]:
    split = receipt["split"]
    return {"split rule": {"algorithm": split["algorithm"], "calibration_count": split["calibration_count"],
                           "total_count": split["total_count"]},
            "metric conventions": receipt["measures"]}


def data_differences(first: dict[str, Any], other: dict[str, Any]) -> list[str]:
    """What differs between two receipts' data beyond the embedding and text profile, each with both values (first's
    against other's); empty for receipts of one fixture, or of fixtures of the same content."""
    if first["corpus"]["fixture_sha256"] == other["corpus"]["fixture_sha256"]:
        return []
    mine, theirs = _run_facets(first), _run_facets(other)
    return content_differences(first["corpus"], other["corpus"]) + [
        f"the {facet}: {value!r} against {theirs[facet]!r}" for facet, value in mine.items() if theirs[facet] != value]


def _differing(records: Sequence[tuple[str, dict[str, Any]]]) -> str:
    embeddings = {r["embedding"]["identity_sha256"] for _, r in records}
    profiles = {r["fixture"]["profile"] for _, r in records}
    what = [word for word, values in (("embedding", embeddings), ("text profile", profiles)) if len(values) > 1]
    return " and ".join(what) if what else "vectors (under one embedding identity and text profile)"


def fixtures_sentence(records: Sequence[tuple[str, dict[str, Any]]]) -> str:
    """The one sentence a comparison states about its fixtures; `records` are (run name, {"fixture", "embedding"})
    in run order."""
    fixtures = list(dict.fromkeys(r["fixture"]["sha256"] for _, r in records))
    if len(fixtures) == 1:
        embedding = records[0][1]["embedding"]
        return (f"every run read one fixture ({fixtures[0]}), so every arm has the same embedding "
                f"({embedding['model']}, identity {embedding['identity_sha256']})")
    differing = _differing(records)
    models = "; ".join(f"{name}: {r['embedding']['model']} (identity {r['embedding']['identity_sha256']}, text "
                       f"profile {r['fixture']['profile']})" for name, r in records)
    return (f"the runs read {len(fixtures)} fixtures that hold the same documents, queries and judgements and differ "
            f"in their {differing}: {models}; so the arms of runs on different fixtures differ in their {differing}, "
            "besides any difference of system or configuration")
