"""A forger of primary data: the fixture's judgements and queries, edited and resealed with the project's own code.

Whoever makes a run writes its fixture, so a forger can change what the fixture says the dataset is and then
re-derive every digest that depends on it (the fixture's payload hashes, its own sha256, the receipts' corpus
blocks, the rows' qrels and metrics, the aggregates). Only the validator's own pins of the dataset can object.
"""

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from harness.corpus.split import select, selected_ids_sha256
from harness.hashing import sha256_canonical, sha256_file

from . import forger
from .support import MODES, Json, RunCopy


def _payload(fixture: Json) -> dict[str, str]:
    documents = sorted(({"doc_id": d["doc_id"], "title": d["title"], "text": d["text"]} for d in fixture["documents"]),
                       key=lambda d: d["doc_id"])
    queries = sorted(({"query_id": q["query_id"], "text": q["text"]} for q in fixture["queries"]),
                     key=lambda q: q["query_id"])
    return {"documents": sha256_canonical(documents), "queries": sha256_canonical(queries),
            "qrels": sha256_canonical({q["query_id"]: q["qrels"] for q in fixture["queries"]})}


def reseal_fixture(path: Path, change: Callable[[Json, Path], object]) -> Json:
    """Change a fixture file in place (and its vector sidecar, passed to `change`), its payload hashes and vector
    digest re-derived, as the harness writes fixtures."""
    fixture: Json = json.loads(path.read_text(encoding="utf-8"))
    sidecar = path.parent / fixture["vectors"]["file"]
    change(fixture, sidecar)
    fixture["payload_hashes"].update(_payload(fixture))
    fixture["vectors"]["sha256"] = sha256_file(sidecar)
    path.write_text(json.dumps(fixture, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return fixture


def judged_by_ranking(fixture: Json, ranked: dict[str, list[str]], query_ids: set[str]) -> list[str]:
    """Each named query's judgements replaced by as many of its highest-ranked documents that were not judged
    relevant: the shape of the judgements kept, the system's own mistakes made right."""
    changed = []
    for query in fixture["queries"]:
        top = [doc_id for doc_id in ranked.get(query["query_id"], []) if doc_id not in query["qrels"]]
        if query["query_id"] in query_ids and len(top) >= len(query["qrels"]):
            query["qrels"] = {doc_id: 1 for doc_id in top[: len(query["qrels"])]}
            changed.append(query["query_id"])
    return changed


def rewrite_fixture(copy: RunCopy, change: Callable[[Json, Path], object]) -> Json:
    """Change a private copy of the fixture (and its vector sidecar, passed to `change`), reseal its payload
    hashes, and point every receipt of the copy at it with every corpus digest re-derived."""
    path, _ = copy.copy_fixture()
    fixture = reseal_fixture(path, change)
    for aggregate_path in copy.out.glob("*.aggregate.json"):
        aggregate = json.loads(aggregate_path.read_text(encoding="utf-8"))
        corpus = aggregate["receipt"]["corpus"]
        corpus.update(fixture_sha256=sha256_file(path), contract=fixture["contract"], counts=fixture["counts"])
        corpus["payload_hashes"].update(_payload(fixture))
        if "vectors_sha256" in corpus:
            corpus["vectors_sha256"] = fixture["vectors"]["sha256"]
        copy.write_aggregate(aggregate["mode"], aggregate["split"], aggregate)
    return fixture


def _reseal_rows(copy: RunCopy, fixture: Json, split: str, modes: tuple[str, ...] = MODES) -> None:
    """Every mode's rows of `split`: the fixture's qrels, the split's queries, metrics and aggregates re-derived."""
    queries = {q["query_id"]: q for q in fixture["queries"]}
    selected = select(queries, split, fixture["contract"]["calibration_count"])
    for mode in modes:
        rows = [row for row in copy.rows(mode, split) if row["query_id"] in queries]
        for row in rows:
            row["qrels"] = queries[row["query_id"]]["qrels"]
            forger.reseal_row(row)

        def split_block(aggregate: Json) -> None:
            aggregate["receipt"]["split"].update(total_count=len(queries), selected_count=len(selected),
                                                 selected_ids_sha256=selected_ids_sha256(selected))
        forger.write_forged(copy, mode, split, rows, change_aggregate=split_block)


def forge_judgements(copy: RunCopy, split: str, mode: str = "vector_only") -> list[str]:
    """The split's queries judged by `mode`'s own rankings (see judged_by_ranking), every digest re-derived."""
    ranked = {row["query_id"]: row["ranked_doc_ids"] for row in copy.rows(mode, split)}
    changed: list[str] = []
    fixture = rewrite_fixture(copy, lambda f, _: changed.extend(judged_by_ranking(f, ranked, set(ranked))))
    for each in ("calibration", "heldout"):
        _reseal_rows(copy, fixture, each)
    return changed


def drop_queries(copy: RunCopy, dropped: set[str]) -> None:
    """Remove queries (their vectors too) from the fixture; re-derive counts, splits, rows and aggregates."""
    def change(fixture: Json, sidecar: Path) -> None:
        dims = fixture["vectors"]["dimensions"]
        vectors = np.frombuffer(sidecar.read_bytes(), dtype="<f4").reshape(-1, dims)
        keep = [i for i in range(len(fixture["documents"]))] + [
            len(fixture["documents"]) + i for i, q in enumerate(fixture["queries"]) if q["query_id"] not in dropped]
        sidecar.write_bytes(np.ascontiguousarray(vectors[keep]).astype("<f4").tobytes())
        fixture["queries"] = [q for q in fixture["queries"] if q["query_id"] not in dropped]
        fixture["vectors"]["rows"] = len(keep)
        fixture["counts"].update(queries=len(fixture["queries"]),
                                 qrel_pairs=sum(len(q["qrels"]) for q in fixture["queries"]))
        fixture["contract"].update(test_queries=fixture["counts"]["queries"],
                                   test_qrel_pairs=fixture["counts"]["qrel_pairs"])
    fixture = rewrite_fixture(copy, change)
    for split in ("calibration", "heldout"):
        _reseal_rows(copy, fixture, split)


