"""The declared modes (harness/schemas/modes.json), read as data: the lanes each mode runs and its fusion."""

import json
from typing import Any

from .schemas import SCHEMA_DIR

_TABLE: list[dict[str, Any]] = json.loads((SCHEMA_DIR / "modes.json").read_text(encoding="utf-8"))["modes"]
LANES: dict[str, tuple[str, ...]] = {entry["name"]: tuple(entry["lanes"]) for entry in _TABLE}
FUSION: dict[str, str | None] = {entry["name"]: entry["fusion"] for entry in _TABLE}


def has_lane(mode: str, lane: str) -> bool:
    return lane in LANES.get(mode, ())


def fused(mode: str) -> bool:
    return FUSION.get(mode) is not None
