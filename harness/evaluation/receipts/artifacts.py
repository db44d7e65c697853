"""Artifact names and writing: nothing existing is overwritten silently.

An earlier artifact pair is moved to `<output>/superseded/<UTC time>/` only when the caller asks
for replacement; otherwise its presence is an error. How a pair is written, exclusively and so that a
kill leaves nothing that looks complete, is `harness.evaluation.receipts.artifact_writer`.
"""

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.errors import RefusedError


def rows_name(mode: str, split: str) -> str:
    return f"scifact-{mode}-{split}.jsonl"


def aggregate_name(mode: str, split: str) -> str:
    return f"scifact-{mode}-{split}.aggregate.json"


class ArtifactExistsError(RefusedError):
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
    target = superseded_directory(output_dir, existing[0].name)
    for path in existing:
        path.rename(target / path.name)
    return target


def superseded_directory(output_dir: Path, first: str, label: str = "") -> Path:
    """A new `OUTPUT/superseded/<UTC time>[label][-n]/` that holds no file named `first` yet."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + label
    target = output_dir / "superseded" / stamp
    suffix = 0
    while (target / first).exists():
        suffix += 1
        target = output_dir / "superseded" / f"{stamp}-{suffix}"
    target.mkdir(parents=True, exist_ok=True)
    return target


def rows_bytes(rows: Sequence[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(row, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
                    + b"\n" for row in rows)


def aggregate_bytes(aggregate: dict[str, Any]) -> bytes:
    return json.dumps(aggregate, ensure_ascii=False, allow_nan=False, indent=1).encode() + b"\n"
