"""The corpus fixture: one JSON document plus a binary vector sidecar, written atomically, read back verified."""

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .atomic import write_bytes_atomic
from .errors import FixtureError
from .hashing import sha256_bytes, sha256_file
from .schema_check import validate

SCHEMA_ID = "scifact-corpus-fixture-v1"
VECTOR_LAYOUT = "row-major; one row per document in fixture order, then one row per query in fixture order"


def fixture_bytes(fixture: dict[str, Any]) -> bytes:
    """Stable serialization: the same fixture always gives the same bytes."""
    return (json.dumps(fixture, ensure_ascii=False, allow_nan=False, indent=1) + "\n").encode("utf-8")


def sidecar_name(out: Path, digest: str) -> str:
    return f"{out.stem}.vectors-{digest.removeprefix('sha256:')[:16]}.f32"


def _write_if_changed(path: Path, data: bytes) -> bool:
    if path.exists() and path.read_bytes() == data:
        return False
    write_bytes_atomic(path, data)
    return True


def write_fixture(fixture: dict[str, Any], vectors: NDArray[np.float32], out: Path) -> bool:
    """Write sidecar then fixture; return whether anything on disk changed.

    The sidecar's name carries its digest, so an older fixture never points at newer vectors, even if
    the process dies between the two writes. Sidecars no longer referenced are removed afterwards.
    """
    data = np.ascontiguousarray(vectors, dtype="<f4").tobytes()
    digest = sha256_bytes(data)
    fixture["vectors"] = {
        "file": sidecar_name(out, digest),
        "sha256": digest,
        "dtype": "float32",
        "byte_order": "little",
        "rows": int(vectors.shape[0]),
        "dimensions": int(vectors.shape[1]),
        "layout": VECTOR_LAYOUT,
    }
    validate(fixture, "corpus-fixture")
    changed = _write_if_changed(out.parent / fixture["vectors"]["file"], data)
    changed = _write_if_changed(out, fixture_bytes(fixture)) or changed
    for stale in out.parent.glob(f"{out.stem}.vectors-*.f32"):
        if stale.name != fixture["vectors"]["file"]:
            stale.unlink()
    return changed


@dataclass(frozen=True)
class CorpusFixture:
    path: Path
    sha256: str
    data: dict[str, Any]
    document_vectors: NDArray[np.float32]
    query_vectors: NDArray[np.float32]


def load_fixture(path: Path) -> CorpusFixture:
    if not path.is_file():
        raise FixtureError(f"corpus fixture {path} does not exist; build it with `python -m harness build`")
    raw = path.read_bytes()
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise FixtureError(f"corpus fixture {path} is not valid JSON: {exc}") from exc
    validate(data, "corpus-fixture")
    meta = data["vectors"]
    sidecar = path.parent / meta["file"]
    if not sidecar.is_file():
        raise FixtureError(f"vector sidecar {sidecar} named by {path} is missing; rebuild the fixture")
    found = sha256_file(sidecar)
    if found != meta["sha256"]:
        raise FixtureError(f"vector sidecar {sidecar} has {found}, the fixture records {meta['sha256']}; rebuild")
    documents, queries = len(data["documents"]), len(data["queries"])
    if meta["rows"] != documents + queries:
        raise FixtureError(f"fixture {path} records {meta['rows']} vector rows for {documents + queries} texts")
    matrix = np.fromfile(sidecar, dtype="<f4").reshape(meta["rows"], meta["dimensions"])
    return CorpusFixture(path, sha256_bytes(raw), data, matrix[:documents], matrix[documents:])
