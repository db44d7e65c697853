"""The values the texts are held to: each validated aggregate by split and mode, each comparison of modes and each
comparison between systems by split, read from the bundle's bytes the validator has just validated."""

import contextlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.digests import sha256_file

Json = dict[str, Any]


@dataclass
class Facts:
    aggregates: dict[tuple[str, str], Json] = field(default_factory=dict)  # (split, mode) -> aggregate
    sources: dict[tuple[str, str], str] = field(default_factory=dict)  # (split, mode) -> its path in the bundle
    modes: dict[str, Json] = field(default_factory=dict)  # split -> comparison of modes
    systems: dict[str, Json] = field(default_factory=dict)  # split -> comparison between systems
    rows: dict[tuple[str, str], list[Json]] = field(default_factory=dict)  # (split, mode) -> its rows
    digests: dict[tuple[str, str], str] = field(default_factory=dict)  # (split, mode) -> the aggregate's sha256
    freeze: Json | None = None  # the bundle's freeze record, when a held-out aggregate was validated against it

    def aggregate(self, split: str | None, mode: str) -> Json | None:
        return None if split is None else self.aggregates.get((split, mode))

    def source(self, split: str | None, mode: str) -> str:
        return self.sources.get((split or "", mode), f"no {mode} {split} aggregate")

    def pair(self, split: str | None, a: str, b: str) -> tuple[Json, str] | None:
        """A pair's comparison and its artifact's name: between systems when its arms name runs (run/mode)."""
        document = (self.systems if "/" in a else self.modes).get(split or "")
        if document is None:
            return None
        found = next((c for c in document["comparisons"] if (c["a"], c["b"]) == (a, b)), None)
        kind = "systems" if "/" in a else "comparison"
        return None if found is None else (found, f"the {split} {kind} artifact")


def _read(path: Path) -> Json | None:
    try:
        value = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def gather(bundle: Path, validated: list[str]) -> Facts:
    """`validated`: the paths (relative to the bundle) of the artifacts the validator judged in this process."""
    facts = Facts()
    for name in validated:
        document = _read(bundle / name)
        if document is None:
            continue
        if name.endswith(".aggregate.json") and isinstance(document.get("receipt"), dict):
            key = (str(document.get("split")), str(document.get("mode")))
            facts.aggregates[key], facts.sources[key] = document, name
            rows = (bundle / name).with_name(Path(name).name.removesuffix(".aggregate.json") + ".jsonl")
            with contextlib.suppress(OSError, ValueError):
                facts.rows[key] = [json.loads(line) for line in rows.read_text(encoding="utf-8").splitlines()
                                   if line.strip()]
            facts.digests[key] = sha256_file(bundle / name)
        elif "-systems-" in Path(name).name:
            facts.systems[str(document.get("split"))] = document
        elif "-comparison-" in Path(name).name:
            facts.modes[str(document.get("split"))] = document
    if any(split in ("heldout", "all") for split, _ in facts.aggregates):
        facts.freeze = _read(bundle / "freeze.json")
    return facts
