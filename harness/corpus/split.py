"""The deterministic calibration / held-out split."""

import hashlib
from collections.abc import Iterable

from harness.hashing import sha256_canonical

SPLITS = ("calibration", "heldout", "all")
ALGORITHM = (
    "sort all test query ids by (sha256(utf-8 id) hex digest, id); the first calibration_count are "
    "calibration, the rest held-out; 'all' is every id in that order"
)


def split_order(query_ids: Iterable[str]) -> list[str]:
    ids = list(query_ids)
    if len(set(ids)) != len(ids):
        raise ValueError("query ids repeat; the split needs unique ids")
    return sorted(ids, key=lambda qid: (hashlib.sha256(qid.encode("utf-8")).hexdigest(), qid))


def select(query_ids: Iterable[str], split: str, calibration_count: int) -> list[str]:
    ordered = split_order(query_ids)
    if not 0 < calibration_count < len(ordered):
        raise ValueError(f"calibration count {calibration_count} must be between 1 and {len(ordered) - 1}")
    if split == "calibration":
        return ordered[:calibration_count]
    if split == "heldout":
        return ordered[calibration_count:]
    if split == "all":
        return ordered
    raise ValueError(f"unknown split {split!r}; choose one of {', '.join(SPLITS)}")


def selected_ids_sha256(selected: list[str]) -> str:
    """Digest of the selected ids in split order (canonical JSON list)."""
    return sha256_canonical(selected)
