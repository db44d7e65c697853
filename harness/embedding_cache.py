"""Append-only embedding cache: one JSONL file per model identity, one checksummed record per prompt.

Every new record is written, flushed and fsync'd before the next is embedded, so a build killed at any
moment loses at most the record being written. On open, a final line without its newline is a torn
write: it is cut off and reported. Any other damaged line is corruption and fails loudly, since
repairing it would silently drop a vector. An exclusive lock keeps two builds from appending at once.
"""

import base64
import fcntl
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from .atomic import fsync_directory, write_bytes_atomic
from .errors import CacheCorruptionError
from .hashing import canonical_json, sha256_bytes, sha256_canonical, sha256_text
from .vectors import Vector

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


class EmbeddingCache:
    def __init__(self, directory: Path, identity: dict[str, Any]) -> None:
        self.model = model_key(identity)
        directory.mkdir(parents=True, exist_ok=True)
        stem = self.model.removeprefix("sha256:")[:32]
        self.path = directory / f"{stem}.jsonl"
        self.identity_path = directory / f"{stem}.identity.json"
        self._identity = identity
        self._entries: dict[str, CachedVector] = {}
        self._lock: IO[bytes] | None = None
        self._handle: IO[bytes] | None = None
        self.report = OpenReport(0, 0)

    def open(self) -> OpenReport:
        self._lock = (self.path.parent / (self.path.name + ".lock")).open("ab")
        fcntl.flock(self._lock.fileno(), fcntl.LOCK_EX)
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
        torn = len(data) - complete_end
        if torn:
            with self.path.open("r+b") as handle:
                handle.truncate(complete_end)
                handle.flush()
                os.fsync(handle.fileno())
            fsync_directory(self.path.parent)
        for number, line in enumerate(data[:complete_end].splitlines(), start=1):
            self._accept(number, line)
        return torn

    def _corrupt(self, number: int, problem: str) -> CacheCorruptionError:
        return CacheCorruptionError(
            f"embedding cache {self.path}, line {number}: {problem}. A damaged record in the middle of "
            "the file is not a torn write and cannot be repaired without losing a vector; move the file "
            "aside to re-embed from scratch."
        )

    def _accept(self, number: int, line: bytes) -> None:
        try:
            record = json.loads(line)
            checksum = record.pop("checksum")
            prompt_sha = record["prompt_sha256"]
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise self._corrupt(number, f"is not a cache record ({exc!r})") from None
        if sha256_bytes(canonical_json(record)) != checksum:
            raise self._corrupt(number, "fails its checksum")
        if record.get("v") != RECORD_VERSION or record.get("model") != self.model:
            raise self._corrupt(number, "belongs to another record version or model")
        vector = np.frombuffer(base64.b64decode(record["vector"]), dtype="<f4")
        if vector.shape[0] != record["dims"] or not np.all(np.isfinite(vector)):
            raise self._corrupt(number, "holds a vector of the wrong size or with non-finite values")
        if prompt_sha in self._entries:
            raise self._corrupt(number, f"repeats the prompt {prompt_sha}")
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
