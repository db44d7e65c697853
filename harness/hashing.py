"""Digests and the one canonical JSON encoding used for every content hash."""

import hashlib
import json
import os
import time
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


SETTLED_NS = 3_000_000_000  # FAT's times are two seconds apart; others' a clock tick or a nanosecond
_SETTLED: dict[str, tuple[tuple[int, int, int, int], str]] = {}


def _stat(path: str) -> tuple[int, int, int, int] | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns


def settled(seen: tuple[int, int, int, int] | None) -> bool:
    """A file with this stat (`_stat`) was last changed long enough ago that any later change shows in its stat."""
    return seen is not None and seen[3] < time.time_ns() - SETTLED_NS


def settled_sha256_file(path: Path) -> str:
    """sha256_file, hashed once per process while the file stands still: the same inode, size and times as when it
    was hashed, and last changed more than SETTLED_NS before. A write sets the change time to the present, which no
    call sets back; a file changed more recently could be rewritten at the same size within its filesystem's grain
    of time without its stat showing it (git's 'racily clean' entries), so it is hashed every time."""
    key = os.path.abspath(path)
    seen = _stat(key)
    known = _SETTLED.get(key)
    if known is not None and known[0] == seen and settled(seen):
        return known[1]
    digest = sha256_file(Path(key))
    if seen is not None and settled(seen) and _stat(key) == seen:
        _SETTLED[key] = (seen, digest)
    return digest
