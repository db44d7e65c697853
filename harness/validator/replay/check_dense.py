"""The fixture's query vectors, and each dense lane's record of which one it used."""

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..core.context import Context
from ..core.digests import sha256_bytes
from ..core.modes import has_lane
from ..core.report import Report
from ..retrieval.live_store import read_vectors


def fixture_query_vectors(ctx: Context) -> dict[str, NDArray[np.float32]]:
    fixture = ctx.fixture
    if fixture is None or ctx.fixture_path is None:
        return {}
    vectors = read_vectors(ctx.fixture_path.parent / fixture["vectors"]["file"], fixture["vectors"]["dimensions"])
    first = len(fixture["documents"])
    return {q["query_id"]: vectors[first + i] for i, q in enumerate(fixture["queries"])
            if first + i < vectors.shape[0]}


def check_query_vectors(ctx: Context, report: Report, vectors: dict[str, NDArray[np.float32]]) -> None:
    if not has_lane(ctx.mode, "dense"):
        return

    def used(row: dict[str, Any]) -> Any:
        return row["search_receipt"]["lanes"]["dense"].get("query_vector_sha256")

    bad = [row["query_id"] for row in ctx.rows if row["error"] is None and (
        row["query_id"] not in vectors or used(row) != sha256_bytes(vectors[row["query_id"]].tobytes()))]
    report.expect("rows.query_vectors", not bad, "each dense lane used the fixture's vector of its query", [], bad[:5])
