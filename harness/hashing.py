"""Digests and the one canonical JSON encoding used for every content hash."""

import hashlib
import json
from pathlib import Path
from typing import Any

CANONICAL_JSON_RULE = (
    "UTF-8 JSON with keys sorted, separators ',' and ':', no ASCII escaping, NaN and Infinity refused"
)


def canonical_json(value: Any) -> bytes:
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def prefixed(hex_digest: str) -> str:
    return "sha256:" + hex_digest


def sha256_bytes(data: bytes) -> str:
    return prefixed(hashlib.sha256(data).hexdigest())


def sha256_text(text: str) -> str:
    return sha256_bytes(text.encode("utf-8"))


def sha256_canonical(value: Any) -> str:
    return sha256_bytes(canonical_json(value))


def sha256_file(path: Path, chunk_size: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(chunk_size):
            digest.update(chunk)
    return prefixed(digest.hexdigest())


def sha256_tree(directory: Path) -> str:
    """A directory by content: canonical JSON {relative path: sha256} over every file under it."""
    files = sorted(p for p in directory.rglob("*") if p.is_file())
    return sha256_canonical({p.relative_to(directory).as_posix(): sha256_file(p) for p in files})
