"""The declared modes (harness/schemas/modes.json), read as data: the lanes each mode runs and its fusion."""

import json
from itertools import pairwise
from typing import Any

from .schemas import SCHEMA_DIR

_TABLE: list[dict[str, Any]] = json.loads((SCHEMA_DIR / "modes.json").read_text(encoding="utf-8"))["modes"]
MODES: tuple[str, ...] = tuple(entry["name"] for entry in _TABLE)  # in the table's order
LANES: dict[str, tuple[str, ...]] = {entry["name"]: tuple(entry["lanes"]) for entry in _TABLE}
FUSION: dict[str, str | None] = {entry["name"]: entry["fusion"] for entry in _TABLE}


def has_lane(mode: str, lane: str) -> bool:
    return lane in LANES.get(mode, ())


def fused(mode: str) -> bool:
    return FUSION.get(mode) is not None


ASCENDING, DESCENDING = "ascending", "descending (trec_eval's order of a run file)"


def tie_rule(mode: str) -> str:
    """How equal scores are ordered: doc id ascending for a mode the system searches in; a run file's rankings are
    trec_eval's, doc id descending."""
    return DESCENDING if mode in LANES and not LANES[mode] else ASCENDING


def in_order(pairs: list[tuple[float, str]], rule: str) -> bool:
    """(score, doc id) pairs best first: scores descending, equal scores by doc id under `rule`."""
    flip = -1 if rule == DESCENDING else 1
    for (score_a, doc_a), (score_b, doc_b) in pairwise(pairs):
        if score_a < score_b or (score_a == score_b and (doc_a > doc_b) - (doc_a < doc_b) != -flip):
            return False
    return True
