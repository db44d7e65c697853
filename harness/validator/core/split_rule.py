"""The split, recomputed: sort ids by (sha256(utf-8 id) hex, id); the first N are calibration."""

import hashlib


def order(query_ids: list[str]) -> list[str]:
    return sorted(query_ids, key=lambda qid: (hashlib.sha256(qid.encode("utf-8")).hexdigest(), qid))


def selection(query_ids: list[str], split: str, calibration_count: int) -> list[str]:
    ordered = order(query_ids)
    return {"calibration": ordered[:calibration_count], "heldout": ordered[calibration_count:],
            "all": ordered}.get(split, [])
