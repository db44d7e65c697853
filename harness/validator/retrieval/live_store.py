"""The live store a receipt names, read with the standard library and numpy: manifest, mapping, facts, vectors."""

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..core.strict_json import load_file


@dataclass(frozen=True)
class LiveStore:
    directory: Path
    manifest: dict[str, Any]
    doc_to_fact: dict[str, int]
    vectors: NDArray[np.float32]  # dense.f32, one row per fact in fact-id order
    tokenizer: dict[str, Any]  # the tokenizer record saved beside the lexical index

    def part(self, name: str) -> Path:
        return self.directory / str(self.manifest["parts"][name]["path"])


def read_vectors(path: Path, dimensions: int) -> NDArray[np.float32]:
    """Little-endian float32 rows; a file whose size is not a whole number of rows raises ValueError."""
    data = path.read_bytes()
    if len(data) % (4 * dimensions):
        raise ValueError(f"{path} holds {len(data)} bytes, not a whole number of {dimensions}-d float32 rows")
    return np.frombuffer(data, dtype="<f4").reshape(-1, dimensions)


def load_live_store(directory: Path, manifest: dict[str, Any], doc_to_fact: dict[str, int],
                    dimensions: int) -> LiveStore:
    vectors = read_vectors(directory / manifest["parts"]["dense"]["path"], dimensions)
    tokenizer = load_file(directory / manifest["parts"]["lexical"]["path"] / "tokenizer.json")
    return LiveStore(directory, manifest, doc_to_fact, vectors, tokenizer)


FACTS_QUERY = "SELECT fact_id, namespace, ordinal, title, body, dims, vector FROM facts ORDER BY fact_id"


def read_facts(path: Path) -> list[tuple[Any, ...]]:
    """Every fact row; the file is opened read-only and immutable, so reading never changes its bytes."""
    connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        return connection.execute(FACTS_QUERY).fetchall()
    finally:
        connection.close()
