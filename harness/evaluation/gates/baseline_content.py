"""The dataset content a hypothesis's baseline was frozen on, when it was frozen on another fixture than the declaring
freeze: read from that fixture where the baseline's output directory's locations.json places it (held to the frozen
digest), else from a receipt in that directory that ran on it (its `corpus` block states the same content). A
hypothesis may name a baseline on another fixture of the same dataset content (another embedding or text profile);
one on other data is refused."""

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.corpus.same_content import content_differences
from harness.errors import RefusedError
from harness.evaluation.receipts.locations import FIXTURES, hinted
from harness.hashing import sha256_bytes


class BaselineDataRefused(RefusedError):
    """A hypothesis's baseline was frozen on a fixture of other data, or on one whose content cannot be read."""


def _placed(directory: Path, digest: str) -> dict[str, Any] | None:
    """The fixture the directory's locations.json places by `digest`, when it is there with those bytes."""
    place = hinted(directory, FIXTURES, digest)
    try:
        data = place.read_bytes() if place is not None else None
    except OSError:
        return None
    if data is None or sha256_bytes(data) != digest:
        return None
    fixture: dict[str, Any] = json.loads(data)
    return fixture


def _from_receipts(directory: Path, digest: str) -> dict[str, Any] | None:
    """The `corpus` block of a receipt in `directory` that ran on the fixture `digest`."""
    for path in sorted(directory.glob("?*.aggregate.json")):
        try:
            corpus = json.loads(path.read_bytes())["receipt"]["corpus"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if isinstance(corpus, dict) and corpus.get("fixture_sha256") == digest:
            return corpus
    return None


def check_baseline_data(directory: Path, record: Mapping[str, Any], fixture: Mapping[str, Any],
                        fixture_sha256: str) -> None:
    """Refuses the baseline frozen in `directory` (its freeze `record`) unless it was frozen on this `fixture` or on
    one of the same dataset content, naming each facet that differs with both values."""
    frozen = str(record["corpus"]["fixture_sha256"])
    if frozen == fixture_sha256:
        return
    baseline = _placed(directory, frozen) or _from_receipts(directory, frozen)
    if baseline is None:
        raise BaselineDataRefused(
            f"--hypothesis-baseline {directory}: frozen on fixture {frozen}, this freeze on {fixture_sha256}, and the "
            f"baseline's fixture is neither placed by {directory / 'locations.json'} nor named by a receipt there, so "
            "whether it holds the same documents, queries and judgements cannot be told: freeze (or run calibration "
            "for) the baseline on this machine from its output directory, or evaluate it on this fixture")
    differences = content_differences(fixture, baseline)
    if differences:
        raise BaselineDataRefused(
            f"--hypothesis-baseline {directory}: frozen on fixture {frozen}, which holds other data than this freeze's "
            f"fixture {fixture_sha256} (this one's against the baseline's: {'; '.join(differences)}); a hypothesis "
            "compares runs on the same documents, queries and judgements (their fixtures may differ in the embedding "
            "and text profile only): evaluate the baseline on a fixture of this dataset content")
