"""Append-only embedding cache: one JSONL file per model identity, one checksummed record per prompt.

Every new record is written, flushed and fsync'd before the next is embedded, so a build killed at any
moment loses at most the record being written. On open, a final line without its newline is a torn
write: it is cut off and reported. So is a final line holding NUL bytes, what a crash leaves when the
file's length reached the disk before its data. Any other damaged line is corruption and fails loudly,
naming the line, since repairing it would silently drop a vector. An exclusive lock keeps two builds
from appending at once; a build that has to wait for it says so.
"""

import base64
import binascii
import errno
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from harness.atomic import fsync_directory, write_bytes_atomic
from harness.embedding.vectors import Vector
from harness.errors import CacheAccessError, CacheCorruptionError, CachePathError
from harness.hashing import canonical_json, sha256_bytes, sha256_canonical, sha256_text
from harness.locks import acquire

RECORD_VERSION = 1


@dataclass(frozen=True)
class CachedVector:
    vector: Vector
    embedded_chars: int | None
    model_truncated: bool | None


@dataclass(frozen=True)
class OpenReport:
    records: int
    torn_tail_bytes: int


def model_key(identity: dict[str, Any]) -> str:
    return sha256_canonical(identity)


def _encode(vector: Vector) -> str:
    return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")


def _record(model: str, prompt_sha: str, cached: CachedVector) -> dict[str, Any]:
    body: dict[str, Any] = {
        "v": RECORD_VERSION,
        "model": model,
        "prompt_sha256": prompt_sha,
        "dims": int(cached.vector.shape[0]),
        "vector": _encode(cached.vector),
        "embedded_chars": cached.embedded_chars,
        "model_truncated": cached.model_truncated,
    }
    body["checksum"] = sha256_bytes(canonical_json(body))
    return body


def _vector_problem(record: dict[str, Any]) -> str | None:
    """What is wrong with a checksummed record's fields, or None: a record can be sealed and still be unusable."""
    fields = (record.get("vector"), record.get("dims"), record.get("embedded_chars"), record.get("model_truncated"))
    encoded, dims, embedded_chars, model_truncated = fields
    if not (isinstance(encoded, str) and type(dims) is int and dims > 0
            and (embedded_chars is None or type(embedded_chars) is int)
            and (model_truncated is None or isinstance(model_truncated, bool))):
        return "has fields of the wrong type (vector, dims, embedded_chars or model_truncated)"
    try:
        raw = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        return "holds a vector that is not valid base64"
    if len(raw) != 4 * dims:
        return f"holds a vector of {len(raw)} bytes, not the {dims} float32 values it declares"
    if not np.all(np.isfinite(np.frombuffer(raw, dtype="<f4"))):
        return "holds a vector with non-finite values"
    return None


class EmbeddingCache:
    def __init__(self, directory: Path, identity: dict[str, Any]) -> None:
        self.model = model_key(identity)
        stem = self.model.removeprefix("sha256:")[:32]
        self.path = directory / f"{stem}.jsonl"
        self.identity_path = directory / f"{stem}.identity.json"
        self._identity = identity
        self._entries: dict[str, CachedVector] = {}
        self._lock: IO[bytes] | None = None
        self._handle: IO[bytes] | None = None
        self.report = OpenReport(0, 0)

    def open(self) -> OpenReport:
        try:
            return self._open()
        except OSError as exc:
            self.close()
            wrong_kind = exc.errno in (errno.EISDIR, errno.ENOTDIR, errno.EEXIST)
            raise (CachePathError if wrong_kind else CacheAccessError)(
                f"embedding cache {exc.filename or self.path}: {exc.strerror or exc}. The cache must be a writable "
                f"directory of regular files; make {self.path.parent} so (or move it aside: every text is then "
                "embedded again), or pass another --work-dir.") from exc

    def _open(self) -> OpenReport:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock_path = self.path.parent / (self.path.name + ".lock")
        self._lock = lock_path.open("ab")
        acquire(self._lock, lock_path, f"the embedding cache {self.path} (another build is embedding)")
        if not self.identity_path.exists():
            write_bytes_atomic(self.identity_path, canonical_json(self._identity) + b"\n")
        torn = self._load()
        self._handle = self.path.open("ab")
        self.report = OpenReport(len(self._entries), torn)
        return self.report

    def close(self) -> None:
        for handle in (self._handle, self._lock):
            if handle is not None:
                handle.close()
        self._handle = self._lock = None

    def __enter__(self) -> "EmbeddingCache":
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _load(self) -> int:
        if not self.path.exists():
            return 0
        data = self.path.read_bytes()
        complete_end = data.rfind(b"\n") + 1
        while complete_end and b"\x00" in data[(start := data.rfind(b"\n", 0, complete_end - 1) + 1):complete_end]:
            complete_end = start  # no record holds a raw NUL (JSON escapes it): this line is what a crash left
        torn = len(data) - complete_end
        if torn:
            with self.path.open("r+b") as handle:
                handle.truncate(complete_end)
                handle.flush()
                os.fsync(handle.fileno())
            fsync_directory(self.path.parent)
        lines = data[:complete_end].splitlines()
        for number, line in enumerate(lines, start=1):
            self._accept(number, len(lines), line)
        return torn

    def _corrupt(self, number: int, total: int, problem: str) -> CacheCorruptionError:
        return CacheCorruptionError(
            f"embedding cache {self.path}, line {number} of {total}: {problem}. A damaged record before the last "
            f"line is not a torn write. Delete that line (sed -i '{number}d' {self.path}: its text is embedded again) "
            f"or move the file aside to embed all {total} texts again.")

    def _accept(self, number: int, total: int, line: bytes) -> None:
        try:
            record = json.loads(line)
            checksum = record.pop("checksum")
            prompt_sha = record["prompt_sha256"]
        except (ValueError, KeyError, TypeError, AttributeError):
            raise self._corrupt(number, total, f"is not a cache record ({len(line)} bytes starting "
                                f"{line[:24]!r})") from None
        if sha256_bytes(canonical_json(record)) != checksum:
            raise self._corrupt(number, total, "fails its checksum")
        if record.get("v") != RECORD_VERSION or record.get("model") != self.model:
            raise self._corrupt(number, total, "belongs to another record version or model")
        problem = _vector_problem(record)
        if problem is not None:
            raise self._corrupt(number, total, problem)
        if prompt_sha in self._entries:
            raise self._corrupt(number, total, f"repeats the prompt {prompt_sha}")
        vector = np.frombuffer(base64.b64decode(record["vector"], validate=True), dtype="<f4")
        self._entries[prompt_sha] = CachedVector(vector, record["embedded_chars"], record["model_truncated"])

    def get(self, prompt: str) -> CachedVector | None:
        return self._entries.get(sha256_text(prompt))

    def put(self, prompt: str, cached: CachedVector) -> None:
        if self._handle is None:
            raise RuntimeError("the embedding cache is not open")
        prompt_sha = sha256_text(prompt)
        if prompt_sha in self._entries:
            return
        self._handle.write(canonical_json(_record(self.model, prompt_sha, cached)) + b"\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())
        self._entries[prompt_sha] = cached
