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
from .json_input import parse_document
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


REBUILD = "rebuild it with `python -m harness build`"


def load_fixture(path: Path) -> CorpusFixture:
    if not path.is_file():
        problem = "is a directory" if path.is_dir() else "does not exist"
        raise FixtureError(f"corpus fixture {path} {problem}; build it with `python -m harness build`")
    raw = path.read_bytes()
    data = parse_document(raw, path, "corpus fixture", "corpus-fixture", REBUILD, FixtureError)
    _check_consistent(path, data)
    meta = data["vectors"]
    sidecar = path.parent / meta["file"]
    if not sidecar.is_file():
        raise FixtureError(f"vector sidecar {sidecar} named by {path} is missing; {REBUILD}")
    found = sha256_file(sidecar)
    if found != meta["sha256"]:
        raise FixtureError(f"vector sidecar {sidecar} has {found}, the fixture records {meta['sha256']}; {REBUILD}")
    size = sidecar.stat().st_size
    expected = 4 * meta["rows"] * meta["dimensions"]
    if size != expected:
        raise FixtureError(f"fixture {path} records {meta['rows']} vectors of {meta['dimensions']} dimensions, but "
                           f"its sidecar {sidecar.name} holds {size} bytes, not {expected}; the fixture was edited: "
                           f"{REBUILD}")
    matrix = np.fromfile(sidecar, dtype="<f4").reshape(meta["rows"], meta["dimensions"])
    documents = len(data["documents"])
    return CorpusFixture(path, sha256_bytes(raw), data, matrix[:documents], matrix[documents:])


def _check_consistent(path: Path, data: dict[str, Any]) -> None:
    """What the schema cannot say: ids are unique and the counts and dimensions agree with the texts."""
    doc_ids = [document["doc_id"] for document in data["documents"]]
    query_ids = [query["query_id"] for query in data["queries"]]
    meta, counts = data["vectors"], data["counts"]
    problems = [
        *([f"{len(doc_ids) - len(set(doc_ids))} repeated document ids"] if len(set(doc_ids)) != len(doc_ids) else []),
        *([f"{len(query_ids) - len(set(query_ids))} repeated query ids"] if len(set(query_ids)) != len(query_ids)
          else []),
        *([f"{meta['rows']} vector rows for {len(doc_ids) + len(query_ids)} texts"]
          if meta["rows"] != len(doc_ids) + len(query_ids) else []),
        *([f"counts {counts['documents']} documents and {counts['queries']} queries for {len(doc_ids)} and "
           f"{len(query_ids)}"] if (counts["documents"], counts["queries"]) != (len(doc_ids), len(query_ids)) else []),
        *([f"vectors of {meta['dimensions']} dimensions, embedding of {data['embedding']['dimensions']}"]
          if meta["dimensions"] != data["embedding"]["dimensions"] else []),
    ]
    if problems:
        raise FixtureError(f"corpus fixture {path} is inconsistent ({'; '.join(problems)}); {REBUILD}")
