"""Digests, re-implemented from the rules the artifacts state (not imported from the producer)."""

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any


def sha256_bytes(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return "sha256:" + digest.hexdigest()


def canonical(value: Any) -> bytes:
    """Keys sorted, separators ',' and ':', no ASCII escaping, no NaN (the rule the fixture records)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def sha256_canonical(value: Any) -> str:
    return sha256_bytes(canonical(value))


def sha256_text(text: str) -> str:
    return sha256_bytes(text.encode("utf-8"))


def directory_digest(directory: Path, file_digest: Callable[[Path], str] = sha256_file) -> str:
    """Canonical JSON {relative path: sha256} over every file under the directory, each by `file_digest`."""
    files = sorted(p for p in directory.rglob("*") if p.is_file())
    return sha256_canonical({p.relative_to(directory).as_posix(): file_digest(p) for p in files})


def part_digest(path: Path) -> str | None:
    """A persisted part by content: a directory by `directory_digest`, a file by its sha256, None when missing."""
    return directory_digest(path) if path.is_dir() else sha256_file(path) if path.is_file() else None


def freeze_digest(record: dict[str, Any]) -> str:
    """A freeze record's own digest: the canonical sha256 of the record without its `freeze_sha256` field."""
    return sha256_canonical({key: value for key, value in record.items() if key != "freeze_sha256"})
