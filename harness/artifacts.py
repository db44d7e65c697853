"""Artifact names and writing: nothing existing is overwritten silently.

An earlier artifact pair is moved to `<output>/superseded/<UTC time>/` only when the caller asks
for replacement; otherwise its presence is an error. JSONL and aggregate are written atomically,
rows first, so an aggregate never names rows that are not on disk.
"""

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .atomic import write_bytes_atomic
from .errors import HarnessError


def rows_name(mode: str, split: str) -> str:
    return f"scifact-{mode}-{split}.jsonl"


def aggregate_name(mode: str, split: str) -> str:
    return f"scifact-{mode}-{split}.aggregate.json"


class ArtifactExistsError(HarnessError):
    """An artifact from an earlier run is in the way."""


def clear_the_way(output_dir: Path, mode: str, split: str, replace: bool) -> Path | None:
    """Refuse, or move the earlier pair aside; return where it went."""
    existing = [p for p in (output_dir / rows_name(mode, split), output_dir / aggregate_name(mode, split))
                if p.exists()]
    if not existing:
        return None
    if not replace:
        raise ArtifactExistsError(
            f"{', '.join(str(p) for p in existing)} already exist(s); an artifact is never overwritten. "
            "Use another --output-dir, or --replace to move the earlier artifacts to superseded/."
        )
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    target = output_dir / "superseded" / stamp
    suffix = 0
    while (target / existing[0].name).exists():
        suffix += 1
        target = output_dir / "superseded" / f"{stamp}-{suffix}"
    target.mkdir(parents=True, exist_ok=True)
    for path in existing:
        path.rename(target / path.name)
    return target


def rows_bytes(rows: Sequence[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(row, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
                    + b"\n" for row in rows)


def write_aggregate(path: Path, aggregate: dict[str, Any]) -> None:
    write_bytes_atomic(path, json.dumps(aggregate, ensure_ascii=False, allow_nan=False, indent=1).encode() + b"\n")
