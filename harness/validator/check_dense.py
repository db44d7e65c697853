"""The dense lane against the fixture's own vectors: the store holds them, and rankings are exact.

Store: every row of dense.f32 (fact-id order) must be the fixture's vector of the document the mapping
pairs with that fact. Exactness: for a seeded sample of rows, every document is scored by brute force
(float64 dot products of the float32 vectors) and the reported dense scores and ranks must agree,
within float32 tolerance.
"""

import operator
import random
from array import array
from pathlib import Path
from typing import Any

from .context import Context
from .digests import sha256_bytes
from .report import Report

SAMPLE_ROWS = 10
SCORE_TOLERANCE = 1e-5  # float32 accumulation in the runner versus float64 here
RANK_TOLERANCE = 1e-6


def _vectors(path: Path) -> "array[float]":
    values = array("f")
    values.frombytes(path.read_bytes())
    if array("f", [1.0]).tobytes() != b"\x00\x00\x80?":  # stored little-endian; swap on big-endian hosts
        values.byteswap()
    return values


def _rows(values: "array[float]", dims: int) -> "list[array[float]]":
    return [values[i:i + dims] for i in range(0, len(values), dims)]


def check_store_vectors(ctx: Context, report: Report, mapping: dict[str, int], dense_path: Path) -> None:
    fixture = ctx.fixture
    if fixture is None or ctx.fixture_path is None:
        return
    sidecar = ctx.fixture_path.parent / fixture["vectors"]["file"]
    dims = fixture["vectors"]["dimensions"]
    width = 4 * dims
    fixture_bytes, dense_bytes = sidecar.read_bytes(), dense_path.read_bytes()
    position = {d["doc_id"]: i for i, d in enumerate(fixture["documents"])}
    by_fact = sorted(mapping.items(), key=operator.itemgetter(1))
    differing = [doc for j, (doc, _) in enumerate(by_fact)
                 if doc not in position or dense_bytes[j * width:(j + 1) * width]
                 != fixture_bytes[position[doc] * width:(position[doc] + 1) * width]]
    report.expect("store.vectors", len(dense_bytes) == len(by_fact) * width and not differing,
                  "every stored dense vector is the fixture's vector of its mapped document", [], differing[:5])


def _brute_force(query: "array[float]", documents: "list[array[float]]") -> list[float]:
    return [sum(map(operator.mul, query, document)) for document in documents]


def _dense_hits(row: dict[str, Any]) -> list[tuple[str, int, float]]:
    """(doc_id, dense rank, dense score) of every hit the dense lane ranked."""
    hits = []
    for result in row["results"]:
        dense = result["lanes"].get("dense", {})
        if dense.get("rank") is not None:
            hits.append((result["doc_id"], dense["rank"], dense["score"]))
    return hits


def _row_problem(row: dict[str, Any], mode: str, scores: dict[str, float]) -> tuple[Any, Any] | None:
    hits = _dense_hits(row)
    for doc, rank, score in hits:
        exact = scores[doc]
        if abs(exact - score) > SCORE_TOLERANCE:
            return f"{doc}: dense score {exact:.7f}", score
        above = sum(s > exact + RANK_TOLERANCE for s in scores.values())
        level = sum(s >= exact - RANK_TOLERANCE for s in scores.values())
        if not above < rank <= level:
            return f"{doc}: dense rank in ({above}, {level}]", rank
    if mode == "vector_only" and hits:
        floor = min(scores[doc] for doc, _, _ in hits)
        missed = [d for d, s in scores.items() if s > floor + RANK_TOLERANCE and d not in {h[0] for h in hits}]
        if missed:
            return "no unreturned document scoring above the lowest returned one", missed[:3]
    return None


def check_exact_sample(ctx: Context, report: Report) -> None:
    fixture = ctx.fixture
    if fixture is None or ctx.fixture_path is None or ctx.mode == "fts_only":
        return
    dims = fixture["vectors"]["dimensions"]
    vectors = _rows(_vectors(ctx.fixture_path.parent / fixture["vectors"]["file"]), dims)
    documents = vectors[: len(fixture["documents"])]
    doc_ids = [d["doc_id"] for d in fixture["documents"]]
    query_rows = {q["query_id"]: vectors[len(documents) + i] for i, q in enumerate(fixture["queries"])}
    bad_vectors = [row["query_id"] for row in ctx.rows if row["error"] is None
                   and row["search_receipt"]["lanes"]["dense"].get("query_vector_sha256")
                   != sha256_bytes(query_rows[row["query_id"]].tobytes())]
    report.expect("rows.query_vectors", not bad_vectors, "each dense lane used the fixture's vector of its query",
                  [], bad_vectors[:5])
    rng = random.Random(int(ctx.aggregate["per_query_sha256"][7:23], 16))
    candidates = [row for row in ctx.rows if row["error"] is None]
    sample = rng.sample(candidates, min(SAMPLE_ROWS, len(candidates)))
    for row in sample:
        scores = dict(zip(doc_ids, _brute_force(query_rows[row["query_id"]], documents), strict=True))
        problem = _row_problem(row, ctx.mode, scores)
        if problem is not None:
            report.fail("dense.exact_sample", f"brute-force dense scores disagree for query {row['query_id']}",
                        problem[0], problem[1])
            return
    report.ok("dense.exact_sample", f"{len(sample)} seeded rows: dense scores and ranks agree with a brute-force "
              f"scan of all {len(documents)} documents")
