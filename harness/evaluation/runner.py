"""Run one mode on one split: a JSONL of per-query rows and one aggregate receipt, written atomically."""

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.corpus.contract import Contract
from harness.errors import HarnessError
from harness.evaluation import ledger, provenance
from harness.evaluation.aggregate import aggregate_metrics
from harness.evaluation.artifact_writer import PairWriter, exclusive_pair
from harness.evaluation.artifacts import aggregate_bytes, clear_the_way, rows_bytes
from harness.evaluation.claims import claim_boundary
from harness.evaluation.metrics import query_metrics
from harness.evaluation.split import ALGORITHM, select, selected_ids_sha256
from harness.fixture.corpus_fixture import CorpusFixture
from harness.hashing import sha256_bytes, sha256_canonical, sha256_text
from harness.schema_check import validate
from harness.systems.builtin.config import unavailable_capabilities
from harness.systems.builtin.search.searcher import LATENCY_SCOPE, Searcher
from harness.systems.builtin.store.store import Store, part_digests, store_digest

ROW_SCHEMA = "semantic-memory-scifact-query-v1"
AGGREGATE_SCHEMA = "semantic-memory-scifact-aggregate-v1"


@dataclass(frozen=True)
class ModeRun:
    mode: str
    split: str
    rows_path: Path
    aggregate_path: Path
    aggregate: dict[str, Any]
    superseded: Path | None


def _absolute(path: Path) -> str:
    """Every path a receipt records is absolute, so the validator finds it from any working directory; symlinks
    are kept as they are, so a sidecar is looked up beside the same name the harness used."""
    return os.path.abspath(path)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def check_fixture_contract(fixture: CorpusFixture, contract: Contract) -> None:
    if fixture.data["contract"] != contract.summary():
        raise HarnessError(f"fixture {fixture.path} was built under contract {fixture.data['contract']['name']!r} "
                           f"with other terms than {contract.name!r}; build the fixture for this contract")


def _row(mode: str, split: str, query: dict[str, Any], request_id: str, searcher: Searcher) -> dict[str, Any]:
    text = query["text"]
    error, hits, receipt = None, [], None
    started = time.perf_counter_ns()
    try:
        outcome = searcher.search(mode, text)
        latency_ms = (time.perf_counter_ns() - started) / 1e6
        hits, receipt = outcome.hits, searcher.receipt(outcome, text, request_id)
    except Exception as exc:  # a failed query keeps its row and counts as zero in every mean
        latency_ms = (time.perf_counter_ns() - started) / 1e6
        error = f"{type(exc).__name__}: {exc}"
        receipt = {"request_id": request_id, "mode": mode, "query_sha256": sha256_text(text), "error": error,
                   "result_count": 0}
    ranked = [hit.doc_id for hit in hits]
    return {
        "schema": ROW_SCHEMA,
        "mode": mode,
        "split": split,
        "query_id": query["query_id"],
        "query_sha256": sha256_text(text),
        "qrels": query["qrels"],
        "ranked_doc_ids": ranked,
        "results": [{"rank": rank, "doc_id": hit.doc_id, "fact_id": hit.fact_id, "score": hit.score,
                     "lanes": hit.lanes} for rank, hit in enumerate(hits, start=1)],
        "latency_ms": latency_ms,
        "error": error,
        "metrics": query_metrics(ranked, query["qrels"]),
        "request_id": request_id,
        "search_receipt": receipt,
        "search_receipt_sha256": sha256_canonical(receipt),
    }


def _store_receipt(store: Store, before: str, parts: dict[str, str]) -> dict[str, Any]:
    """`parts` are the digests hashed after the run; the after-run digest is derived from them."""
    return {
        "directory": _absolute(store.directory),
        "namespace": store.namespace,
        "document_count": len(store.doc_ids),
        "database_path": _absolute(store.database_path),
        "database_sha256": parts["database"],
        "mapping_path": _absolute(store.mapping_path),
        "mapping_sha256": parts["mapping"],
        "lexical_sha256": parts["lexical"],
        "dense_sha256": parts["dense"],
        "store_sha256": store.sha256,
        "before_run_sha256": before,
        "after_run_sha256": sha256_canonical(parts),
        "digest_rule": "sha256 of canonical JSON {database, mapping, lexical, dense: sha256}",
    }


def _corpus_receipt(fixture: CorpusFixture) -> dict[str, Any]:
    data = fixture.data
    return {
        "fixture_path": _absolute(fixture.path),
        "fixture_sha256": fixture.sha256,
        "vectors_sha256": data["vectors"]["sha256"],
        "contract": data["contract"],
        "source": data["source"],
        "payload_hashes": data["payload_hashes"],
        "counts": data["counts"],
        "builder_version": data["builder_version"],
    }


def _embedding_receipt(fixture: CorpusFixture) -> dict[str, Any]:
    embedding = fixture.data["embedding"]
    return {**{key: embedding[key] for key in ("backend", "model", "identity", "identity_sha256", "endpoint",
                                               "dimensions", "normalization", "truncation_policy",
                                               "retried_prompts", "prompts_truncated_by_model")},
            "semantic_text": fixture.data["semantic_text"], "profile": fixture.data["profile"]}


def run_mode(*, mode: str, split: str, fixture: CorpusFixture, contract: Contract, store: Store,
             searcher: Searcher, output_dir: Path, replace: bool, argv: list[str],
             freeze: dict[str, str] | None = None) -> ModeRun:
    """Run one mode on one split. `freeze` is the verified freeze reference (held-out and all-query runs); such a
    run must also be in turn in the store's history (`ledger.check_turn`), or nothing is written."""
    queries = {query["query_id"]: query for query in fixture.data["queries"]}
    selected = select(queries, split, contract.calibration_count)
    gated = freeze["sha256"] if freeze is not None and split in ledger.HELD_OUT else None
    if gated is not None:
        ledger.check_turn(store.directory, mode, split, gated)
    with exclusive_pair(output_dir, mode, split, replace=replace) as pair:
        superseded = clear_the_way(output_dir, mode, split, replace)
        before = store_digest(store.directory)
        started_at = _now()
        ticket = ledger.begin_run(store.directory, store.namespace, mode, split, selected, started_at,
                                  freeze_sha256=gated)
        try:
            rows, aggregate = _results(
                mode=mode, split=split, fixture=fixture, contract=contract, store=store, searcher=searcher,
                pair=pair, argv=argv, freeze=freeze, ticket=ticket, selected=selected, before=before,
                started_at=started_at)
        except BaseException:
            ledger.finish_run(store.directory, ticket.run_id, "failed", _now())
            raise
        # The history says complete before the files appear: an aggregate on disk always has a finished run.
        ledger.finish_run(store.directory, ticket.run_id, "complete", aggregate["receipt"]["run"]["finished_at"])
        pair.commit(ticket.run_id, rows, aggregate_bytes(aggregate))
    return ModeRun(mode, split, pair.rows_path, pair.aggregate_path, aggregate, superseded)


def _ledger_receipt(store: Store, ticket: ledger.RunTicket) -> dict[str, Any]:
    return {"path": _absolute(store.directory / ledger.LEDGER), "rule": ledger.CHAIN_RULE,
            "run_started": ticket.event.to_dict(),
            "freeze": ticket.freeze_event.to_dict() if ticket.freeze_event is not None else None}


def _results(*, mode: str, split: str, fixture: CorpusFixture, contract: Contract, store: Store, searcher: Searcher,
             pair: PairWriter, argv: list[str], freeze: dict[str, str] | None, ticket: ledger.RunTicket,
             selected: list[str], before: str, started_at: str) -> tuple[bytes, dict[str, Any]]:
    """The rows (as the JSONL's bytes) and the aggregate; nothing is written here."""
    queries = {query["query_id"]: query for query in fixture.data["queries"]}
    rows = [_row(mode, split, queries[qid], ticket.request_ids[qid], searcher) for qid in selected]
    after_parts = part_digests(store.directory)
    finished_at = _now()
    for row in rows:
        validate(row, "query-row")
    data = rows_bytes(rows)
    aggregate = {
        "schema": AGGREGATE_SCHEMA,
        "mode": mode,
        "split": split,
        "row_count": len(rows),
        "per_query_path": pair.rows_path.name,
        "per_query_sha256": sha256_bytes(data),
        "metrics": aggregate_metrics(rows),
        "receipt": {
            "run": {"run_id": ticket.run_id, "sequence": ticket.sequence, "started_at": started_at,
                    "finished_at": finished_at, "request_id_rule": "<run_id>/<query_id>"},
            "executable": provenance.executable(argv),
            "source": {"harness": provenance.harness_digest(), "git": provenance.git_state()},
            "dependencies": provenance.dependency_versions(),
            "corpus": _corpus_receipt(fixture),
            "embedding": _embedding_receipt(fixture),
            "store": _store_receipt(store, before, after_parts),
            "retrieval": {"mode": mode, "top_k": searcher.config.top_k, "config": searcher.config.to_dict(),
                          "config_sha256": searcher.config_sha256, "backend": store.dense.evidence()
                          if mode != "fts_only" else None, "lexical": store.lexical.tokenizer.record()
                          if mode != "vector_only" else None, "latency_scope": LATENCY_SCOPE,
                          "latency_timer": "time.perf_counter_ns around the retrieval call"},
            "split": {"name": split, "algorithm": ALGORITHM, "calibration_count": contract.calibration_count,
                      "total_count": len(queries), "selected_count": len(selected),
                      "selected_ids_sha256": selected_ids_sha256(selected)},
            "capabilities": unavailable_capabilities(),
            "machine": provenance.machine(),
            "claim_boundary": claim_boundary(),
            "profile": fixture.data["profile"],
            "freeze": None if freeze is None else {**freeze, "path": _absolute(Path(freeze["path"]))},
            "ledger": _ledger_receipt(store, ticket),
        },
    }
    validate(aggregate, "aggregate")
    return data, aggregate
