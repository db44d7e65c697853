"""A careful forger: edits rankings, then re-derives every derived value with the project's own functions.

Metrics come from `harness.evaluation.measures.metrics.query_metrics` under the tiny contract's declared conventions
(the clean runs'), digests from `harness.hashing`, the rows file
from `harness.evaluation.receipts.artifacts.rows_bytes` and the aggregate from
`harness.evaluation.measures.aggregate.aggregate_metrics`, exactly as the runner computes them, so every check that
only recomputes derived values from the rows passes. Only a check that goes back to primary data (the
fixture's text and vectors, the live store) can object.
"""

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fixtures.archives import tiny_contract
from harness.evaluation.measures.aggregate import aggregate_metrics
from harness.evaluation.measures.metrics import Conventions, depth_metrics, query_metrics
from harness.evaluation.receipts.artifacts import rows_bytes
from harness.hashing import sha256_bytes, sha256_canonical
from harness.systems.builtin.store.manifest import part_digests

from .support import Json, Row, RunCopy, history_rows, rechain_history, rewrite_history

MIN_GAP = 1e-3  # forgeries move documents between scores at least this far apart: never a rounding tie
MEASURES = Conventions.declared(tiny_contract().measures)


def reseal_row(row: Row) -> None:
    row["ranked_doc_ids"] = [result["doc_id"] for result in row["results"]]
    for rank, result in enumerate(row["results"], start=1):
        result["rank"] = rank
    row["metrics"] = query_metrics(row["ranked_doc_ids"], row["qrels"], MEASURES)
    if "depth_ranking" in row:
        row["metrics"].update(depth_metrics(row["depth_ranking"]["doc_ids"], row["qrels"], MEASURES))
    receipt = row["search_receipt"]
    if row["error"] is None:
        receipt["results_sha256"] = sha256_canonical([[r["doc_id"], r["fact_id"], r["score"]]
                                                      for r in row["results"]])
        receipt["result_count"] = len(row["results"])
    row["search_receipt_sha256"] = sha256_canonical(receipt)


def write_forged(copy: RunCopy, mode: str, split: str, rows: list[Row], *,
                 change_aggregate: Callable[[Json], object] | None = None) -> None:
    """Rows written as the runner writes them; the aggregate re-derived from them under its genuine name."""
    data = rows_bytes(rows)
    copy.rows_path(mode, split).write_bytes(data)

    def reseal(aggregate: Json) -> None:
        aggregate.update(row_count=len(rows), per_query_sha256=sha256_bytes(data), metrics=aggregate_metrics(rows, 10))
        if change_aggregate is not None:
            change_aggregate(aggregate)
    copy.edit_aggregate(mode, split, reseal)


def reseal_search_receipts(copy: RunCopy, mode: str, split: str, **fields: str) -> None:
    """Every row's search receipt given `fields` (config_sha256, store_sha256), its digest and the rows digest
    resealed."""
    rows = copy.rows(mode, split)
    for row in rows:
        row["search_receipt"].update(fields)
        row["search_receipt_sha256"] = sha256_canonical(row["search_receipt"])
    copy.write_rows(mode, split, rows, reseal_digest=True)


def reseal_config(copy: RunCopy, mode: str, split: str, change: Callable[[Json], object]) -> Path:
    """The run's configuration changed, its digest recomputed where the receipt and every search receipt state it,
    and where the run ledger's run-started event binds it (rebind_event)."""
    config = copy.aggregate(mode, split)["receipt"]["retrieval"]["config"]
    change(config)
    digest = sha256_canonical(config)
    reseal_search_receipts(copy, mode, split, config_sha256=digest)

    def reseal(receipt: Json) -> None:
        receipt["retrieval"].update(config=config, config_sha256=digest)
        receipt["system"]["configuration_sha256"] = digest
    copy.edit_receipt(mode, split, reseal)
    return rebind_event(copy, mode, split, configuration_sha256=digest)


def rebind_event(copy: RunCopy, mode: str, split: str, **fields: str) -> Path:
    """The run ledger rewritten, whole chain, with `fields` set in the run's run-started event, and the receipt's
    recorded digest of that event following (the events before it keep theirs)."""
    store = copy.scratch / "store"
    if not store.is_dir():
        store = copy.copy_store()
    position = copy.aggregate(mode, split)["receipt"]["ledger"]["run_started"]["position"]
    events = [json.loads(text) for _, text, _, _ in history_rows(store)]
    events[position - 1].update(fields)
    rechain_history(store, events)
    digest = {row[0]: row[3] for row in history_rows(store)}[position]
    return copy.edit_receipt(mode, split, lambda r: r["ledger"]["run_started"].update(digest=digest))


def reseal_store(copy: RunCopy, store: Path, mode: str, split: str) -> Path:
    """After editing a private copy of the store: every part digest and the store digest recomputed where the
    receipt and the search receipts of (mode, split) state them."""
    parts = part_digests(store)
    digest = sha256_canonical(parts)
    reseal_search_receipts(copy, mode, split, store_sha256=digest)
    return copy.edit_receipt(mode, split, lambda r: r["store"].update(
        database_sha256=parts["database"], mapping_sha256=parts["mapping"], lexical_sha256=parts["lexical"],
        dense_sha256=parts["dense"], store_sha256=digest, before_run_sha256=digest, after_run_sha256=digest))


def _swap_in_single_lane(row: Row, lane: str) -> bool:
    """Put a relevant document first (or, lacking one below rank 1, swap ranks 1 and 2), keeping the scores
    where they were; only between scores at least MIN_GAP apart."""
    results = row["results"]
    relevant = [i for i, r in enumerate(results) if row["qrels"].get(r["doc_id"], 0) > 0]
    pairs = [(0, i) for i in relevant if i > 0] + ([(0, 1)] if len(results) > 1 else [])
    for first, other in pairs:
        if abs(results[first]["score"] - results[other]["score"]) >= MIN_GAP:
            a, b = results[first], results[other]
            for key in ("doc_id", "fact_id"):
                a[key], b[key] = b[key], a[key]
            for result, rank in ((a, first + 1), (b, other + 1)):
                result["lanes"] = {lane: {"rank": rank, "score": result["score"]}}
            reseal_row(row)
            return True
    return False


def forge_single_lane(copy: RunCopy, mode: str, split: str, *, every_row: bool) -> list[str]:
    """Reorder one row (or every row it can) of an fts_only or vector_only run; returns the forged query ids."""
    lane = "lexical" if mode == "fts_only" else "dense"
    rows = copy.rows(mode, split)
    forged = []
    for row in rows:
        if row["error"] is None and _swap_in_single_lane(row, lane):
            forged.append(row["query_id"])
            if not every_row:
                break
    assert forged, f"no row of {mode} {split} could be forged"
    write_forged(copy, mode, split, rows)
    return forged


def fuse(row: Row, rrf_k: int) -> None:
    """Every result's fused score recomputed from its lane ranks (RRF), the results re-sorted, the row resealed."""
    for result in row["results"]:
        fused = sum(1.0 / (rrf_k + result["lanes"][lane]["rank"]) for lane in ("lexical", "dense")
                    if result["lanes"][lane]["rank"] is not None)
        result["score"] = fused
        result["lanes"]["fusion"]["fused_score"] = fused
    row["results"].sort(key=lambda r: (-r["score"], r["doc_id"]))
    reseal_row(row)


def _swap_lexical_lane(row: Row) -> bool:
    """Swap two results' lexical ranks and scores (lane order stays consistent), re-fuse and re-sort."""
    ranked = [r for r in row["results"] if r["lanes"]["lexical"]["rank"] is not None]
    for a in ranked:
        for b in ranked:
            if a is not b and row["qrels"].get(b["doc_id"], 0) > row["qrels"].get(a["doc_id"], 0) \
                    and a["lanes"]["lexical"]["rank"] < b["lanes"]["lexical"]["rank"] \
                    and abs(a["lanes"]["lexical"]["score"] - b["lanes"]["lexical"]["score"]) >= MIN_GAP:
                a["lanes"]["lexical"], b["lanes"]["lexical"] = b["lanes"]["lexical"], a["lanes"]["lexical"]
                return True
    if len(ranked) > 1 and abs(ranked[0]["lanes"]["lexical"]["score"] - ranked[1]["lanes"]["lexical"]["score"]) \
            >= MIN_GAP:
        ranked[0]["lanes"]["lexical"], ranked[1]["lanes"]["lexical"] = (ranked[1]["lanes"]["lexical"],
                                                                          ranked[0]["lanes"]["lexical"])
        return True
    return False


def forge_hybrid_lexical_lane(copy: RunCopy, split: str, *, every_row: bool) -> list[str]:
    rrf_k = copy.aggregate("hybrid", split)["receipt"]["retrieval"]["config"]["rrf_k"]
    rows = copy.rows("hybrid", split)
    forged = []
    for row in rows:
        if row["error"] is None and _swap_lexical_lane(row):
            fuse(row, rrf_k)
            forged.append(row["query_id"])
            if not every_row:
                break
    assert forged, f"no hybrid {split} row could be forged"
    write_forged(copy, "hybrid", split, rows)
    return forged


def relabel_hybrid_as_fts_only(copy: RunCopy, split: str) -> None:
    """The hybrid rows, dressed as fts_only rows (fused scores as lexical scores), under fts_only's names."""
    fts = {row["query_id"]: row for row in copy.rows("fts_only", split)}
    rows = copy.rows("hybrid", split)
    for row in rows:
        row["mode"] = "fts_only"
        genuine = fts[row["query_id"]]
        row["request_id"] = genuine["request_id"]
        receipt: dict[str, Any] = dict(genuine["search_receipt"])
        for rank, result in enumerate(row["results"], start=1):
            result["lanes"] = {"lexical": {"rank": rank, "score": result["score"]}}
        lexical = receipt.get("lanes", {}).get("lexical")
        if lexical is not None:
            receipt["lanes"] = {"lexical": {**lexical, "depth": len(row["results"])}}
        row["search_receipt"] = receipt
        reseal_row(row)
    write_forged(copy, "fts_only", split, rows)


def rebind_source(copy: RunCopy, mode: str, split: str) -> Path:
    """The run ledger rewritten, whole chain, so that the run's run-started event binds the receipt's source block as
    it now stands, and the receipt's recorded digest of that event follows (whoever can write the store can do it):
    only the source checks themselves can object to an edited source block then."""
    store = copy.scratch / "store"
    if not store.is_dir():
        store = copy.copy_store()
    receipt = copy.aggregate(mode, split)["receipt"]
    position = receipt["ledger"]["run_started"]["position"]
    events = [json.loads(text) for _, text, _, _ in history_rows(store)]
    events[position - 1]["source_sha256"] = sha256_canonical(receipt["source"])
    rechain_history(store, events)
    digest = {row[0]: row[3] for row in history_rows(store)}[position]
    return copy.edit_receipt(mode, split, lambda r: r["ledger"]["run_started"].update(digest=digest))


def rechain_without(copy: RunCopy, mode: str, split: str, drop: Callable[[Json], bool]) -> Path:
    """The run ledger rewritten without the events `drop` picks (and their runs), chained again by the rule, and the
    receipt of `mode` `split` following its run's and its freeze's new positions and digests: a careful forger's
    history, consistent everywhere but in what it no longer holds."""
    store = copy.scratch / "store"
    if not store.is_dir():
        store = copy.copy_store()
    rewrite_history(store, lambda event: not drop(event))
    receipt = copy.aggregate(mode, split)["receipt"]
    events = [(position, json.loads(text), digest) for position, text, _, digest in history_rows(store)]

    def place(match: Callable[[Json], bool]) -> dict[str, Any]:
        position, _, digest = next(entry for entry in events if match(entry[1]))
        return {"position": position, "digest": digest}

    started = place(lambda e: e["event"] == "run-started" and e["run_id"] == receipt["run"]["run_id"])
    frozen = None if receipt.get("freeze") is None else place(
        lambda e: e["event"] == "freeze" and e["freeze_sha256"] == receipt["freeze"]["sha256"])
    return copy.edit_receipt(mode, split, lambda r: r["ledger"].update(
        run_started=started, **({} if frozen is None else {"freeze": frozen})))
