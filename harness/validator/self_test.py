"""--self-test: write a tiny, self-consistent run with no harness code, validate it, then tamper with it.

The generated run has every file a real one has (fixture and vectors, store parts and manifest, run ledger
with its hash-chained history, rows, aggregate); it records no git state, so 'source.git' stays not
verified, and the embedding check is skipped. Every other check must pass on the clean copy, and each
tampering must fail its check.
"""

import json
import math
import shutil
import sqlite3
import struct
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import ir_metrics, split_rule
from .check_bindings import CONFIG_FIELDS, FROZEN_BASELINE, LEXICAL_FIELDS
from .check_environment import harness_source_digest
from .check_history import GENESIS, LEDGER, chain_digest
from .digests import canonical, directory_digest, sha256_bytes, sha256_canonical, sha256_file, sha256_text

DOCS = {"a": "alpha beta", "b": "beta gamma", "c": "gamma delta", "d": "delta alpha"}
QUERIES = {"q1": ("alpha", {"a": 1}), "q2": ("gamma", {"b": 1, "c": 1}), "q3": ("delta", {"d": 1})}
RANKINGS = {"q1": ["a", "d", "b"], "q2": ["c", "a", "b"], "q3": []}  # q3 is a failed query


def _write_json(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=1), encoding="utf-8")


CONTRACT = {"name": "self-test", "top_k": 10, "calibration_count": len(QUERIES)}


def _vector(i: int) -> bytes:
    return struct.pack("<2f", math.cos(i), math.sin(i))


def _fixture(root: Path) -> tuple[Path, dict[str, Any]]:
    documents = [{"doc_id": d, "title": "", "text": t, "semantic_text": t} for d, t in DOCS.items()]
    queries = [{"query_id": q, "text": t, "semantic_text": t, "qrels": r} for q, (t, r) in QUERIES.items()]
    vectors = b"".join(_vector(i) for i in range(len(DOCS) + len(QUERIES)))
    (root / "f.vectors.f32").write_bytes(vectors)
    docs_key = sorted(({"doc_id": d["doc_id"], "title": "", "text": d["text"]} for d in documents),
                      key=lambda d: d["doc_id"])
    fixture = {
        "documents": documents, "queries": queries,
        "vectors": {"file": "f.vectors.f32", "sha256": sha256_bytes(vectors), "dimensions": 2},
        "source": {"payload_pinned": True},
        "payload_hashes": {"documents": sha256_canonical(docs_key),
                           "queries": sha256_canonical([{"query_id": q, "text": t} for q, (t, _) in QUERIES.items()]),
                           "qrels": sha256_canonical({q: r for q, (_, r) in QUERIES.items()})},
        "profile": {"name": "scifact-contract", "is_contract": True, "document_prefix": "", "query_prefix": ""},
        "embedding": {"backend": "self-test", "model": "none", "identity_sha256": sha256_bytes(b""), "dimensions": 2,
                      "retried_prompts": []},
        "contract": CONTRACT,
    }
    _write_json(root / "f.json", fixture)
    return root / "f.json", fixture


def _store(root: Path, fixture_sha: str) -> dict[str, Any]:
    store = root / "store"
    (store / "lexical").mkdir(parents=True)
    (store / "facts.sqlite3").write_bytes(b"facts")
    (store / "lexical" / "index").write_bytes(b"index")
    (store / "dense.f32").write_bytes(b"".join(_vector(i) for i in range(len(DOCS))))  # fact order = fixture order
    _write_json(store / "mapping.json", {"schema": "scifact-store-mapping-v1", "namespace": "self-test",
                                         "fixture_sha256": fixture_sha, "documents": len(DOCS),
                                         "doc_to_fact": {d: i for i, d in enumerate(DOCS, start=1)}})
    parts = {"database": "facts.sqlite3", "mapping": "mapping.json", "lexical": "lexical", "dense": "dense.f32"}
    digests = {n: directory_digest(store / p) if (store / p).is_dir() else sha256_file(store / p)
               for n, p in parts.items()}
    binding = {"namespace": "self-test", "fixture_sha256": fixture_sha, "documents": len(DOCS), "dimensions": 2,
               "embedding_identity_sha256": sha256_bytes(b""), "lexical": {}}
    _write_json(store / "store.json", {"schema": "scifact-store-v1", "binding": binding,
                                       "parts": {n: {"path": p, "sha256": digests[n]} for n, p in parts.items()},
                                       "store_sha256": sha256_canonical(digests)})
    return {"directory": str(store), "namespace": "self-test", "document_count": len(DOCS),
            "database_path": str(store / "facts.sqlite3"), "database_sha256": digests["database"],
            "mapping_path": str(store / "mapping.json"), "mapping_sha256": digests["mapping"],
            "lexical_sha256": digests["lexical"], "dense_sha256": digests["dense"],
            "store_sha256": sha256_canonical(digests), "before_run_sha256": sha256_canonical(digests),
            "after_run_sha256": sha256_canonical(digests)}


RUN = {"run_id": "self/run-1", "sequence": 1, "started_at": "-", "finished_at": "-"}


def _ledger(store: Path) -> dict[str, Any]:
    """The store's run ledger: the runs table and a two-event history, chained by the rule it states."""
    events = [{"event": "run-started", "run_id": RUN["run_id"], "mode": "fts_only", "split": "calibration",
               "sequence": RUN["sequence"], "started_at": RUN["started_at"]},
              {"event": "run-finished", "run_id": RUN["run_id"], "status": "complete",
               "finished_at": RUN["finished_at"]}]
    connection = sqlite3.connect(store / LEDGER)
    try:
        with connection:
            connection.execute("CREATE TABLE runs (run_id TEXT PRIMARY KEY, mode TEXT, split TEXT, sequence INTEGER, "
                               "started_at TEXT, finished_at TEXT, status TEXT)")
            connection.execute("INSERT INTO runs VALUES (?, 'fts_only', 'calibration', ?, ?, ?, 'complete')",
                               (RUN["run_id"], RUN["sequence"], RUN["started_at"], RUN["finished_at"]))
            connection.execute("CREATE TABLE history (position INTEGER PRIMARY KEY, event TEXT, previous_digest TEXT, "
                               "digest TEXT)")
            previous = GENESIS
            for position, event in enumerate(events, start=1):
                text = canonical(event).decode("utf-8")
                digest = chain_digest(previous, text)
                connection.execute("INSERT INTO history VALUES (?, ?, ?, ?)", (position, text, previous, digest))
                previous = digest
    finally:
        connection.close()
    first = chain_digest(GENESIS, canonical(events[0]).decode("utf-8"))
    return {"path": str(store / LEDGER), "rule": "self-test", "run_started": {"position": 1, "digest": first},
            "freeze": None}


def _edit_history(aggregate: Path) -> None:
    connection = sqlite3.connect(aggregate.parent / "store" / LEDGER)
    try:
        with connection:
            connection.execute("UPDATE history SET event = replace(event, 'calibration', 'heldout') "
                               "WHERE position = 1")
    finally:
        connection.close()


def _config() -> dict[str, Any]:
    config: dict[str, Any] = dict.fromkeys(CONFIG_FIELDS, "self-test")
    config.update(FROZEN_BASELINE, top_k=10, rrf_k=60, hybrid_candidate_depth=100,
                  lexical=dict.fromkeys(LEXICAL_FIELDS, "self-test"))
    return config


def _row(query_id: str, store: dict[str, Any], config_sha: str) -> dict[str, Any]:
    text, qrels = QUERIES[query_id]
    ranking = RANKINGS[query_id]
    mapping = {d: i for i, d in enumerate(DOCS, start=1)}
    results = [{"rank": i, "doc_id": d, "fact_id": mapping.get(d, 99), "score": 1.0 / i,
                "lanes": {"lexical": {"rank": i, "score": 1.0 / i}}} for i, d in enumerate(ranking, start=1)]
    error = None if ranking else "RuntimeError: self-test failure row"
    receipt: dict[str, Any] = {"request_id": f"self/run-1/{query_id}", "mode": "fts_only",
                               "query_sha256": sha256_text(text), "result_count": len(results)}
    if error is None:
        receipt.update(results_sha256=sha256_canonical([[r["doc_id"], r["fact_id"], r["score"]] for r in results]),
                       config_sha256=config_sha, store_sha256=store["store_sha256"])
    else:
        receipt["error"] = error
    return {"schema": "semantic-memory-scifact-query-v1", "mode": "fts_only", "split": "calibration",
            "query_id": query_id,
            "query_sha256": sha256_text(text), "qrels": qrels, "ranked_doc_ids": ranking, "results": results,
            "latency_ms": 0.5 + len(ranking), "error": error, "metrics": ir_metrics.compute(ranking, qrels),
            "request_id": receipt["request_id"], "search_receipt": receipt,
            "search_receipt_sha256": sha256_canonical(receipt)}


def generate(root: Path) -> Path:
    root.mkdir(parents=True)
    fixture_path, fixture = _fixture(root)
    store, config = _store(root, sha256_file(fixture_path)), _config()
    order = split_rule.selection(list(QUERIES), "calibration", len(QUERIES))
    rows = [_row(q, store, sha256_canonical(config)) for q in order]
    data = b"".join(canonical(row) + b"\n" for row in rows)
    (root / "scifact-fts_only-calibration.jsonl").write_bytes(data)
    latencies = [r["latency_ms"] for r in rows]
    metrics: dict[str, Any] = {k: math.fsum(r["metrics"][k] for r in rows) / len(rows) for k in ir_metrics.KEYS}
    firsts = sorted(r["ranked_doc_ids"][0] for r in rows if r["ranked_doc_ids"])
    metrics.update(
        latency_ms={"mean": math.fsum(latencies) / len(rows), "p50": ir_metrics.nearest_rank(latencies, 0.5),
                    "p95": ir_metrics.nearest_rank(latencies, 0.95), "max": max(latencies)},
        failures=1, result_count_distribution={"0": 1, "3": 2},
        unique_retrieved_docs=len({d for r in rows for d in r["ranked_doc_ids"]}),
        repeated_top1={"doc_id": firsts[0], "count": 1, "frequency": 1 / len(rows)})
    receipt = {
        "run": dict(RUN),
        "executable": {"interpreter": sys.executable, "interpreter_sha256": sha256_file(Path(sys.executable)),
                       "python_version": sys.version.split()[0], "argv": ["self-test"]},
        "source": {"harness": {"sha256": harness_source_digest()}, "git": {"available": False, "reason": "self-test"}},
        "dependencies": {"numpy": "x", "bm25s": "x", "PyStemmer": "x", "jsonschema": "x"},
        "corpus": {"fixture_path": str(fixture_path), "fixture_sha256": sha256_file(fixture_path),
                   "vectors_sha256": fixture["vectors"]["sha256"], "source": fixture["source"],
                   "payload_hashes": fixture["payload_hashes"], "contract": CONTRACT, "counts": {}},
        "embedding": {"backend": "self-test", "model": "none", "identity_sha256": sha256_bytes(b""), "dimensions": 2,
                      "profile": fixture["profile"]},
        "store": store,
        "retrieval": {"mode": "fts_only", "top_k": 10, "config": config, "config_sha256": sha256_canonical(config),
                      "backend": None, "latency_scope": "self-test"},
        "split": {"name": "calibration", "algorithm": "self-test", "calibration_count": len(QUERIES),
                  "total_count": len(QUERIES),
                  "selected_count": len(order), "selected_ids_sha256": sha256_canonical(order)},
        "capabilities": {c: {"reason": "self-test"} for c in ("sparse", "late_interaction", "matryoshka", "graph")},
        "machine": {"cpu_model": "self-test", "logical_cores": 1, "os": "self-test"},
        "claim_boundary": {"supports_lead": "w", "supports": ["x"], "does_not_establish": ["y"], "statement": "z"},
        "profile": fixture["profile"],
        "freeze": None,
        "ledger": _ledger(root / "store"),
    }
    aggregate = {"schema": "semantic-memory-scifact-aggregate-v1", "mode": "fts_only", "split": "calibration",
                 "row_count": len(rows), "per_query_path": "scifact-fts_only-calibration.jsonl",
                 "per_query_sha256": sha256_bytes(data), "metrics": metrics, "receipt": receipt}
    path = root / "scifact-fts_only-calibration.aggregate.json"
    _write_json(path, aggregate)
    return path


def _edit_json(path: Path, change: Callable[[Any], None]) -> None:
    value = json.loads(path.read_text(encoding="utf-8"))
    change(value)
    _write_json(path, value)


TAMPERING: dict[str, tuple[str, Callable[[Path], object]]] = {
    "a metric digit": ("aggregate.metrics", lambda p: _edit_json(p, lambda a: a["metrics"].update(
        ndcg_at_10=a["metrics"]["ndcg_at_10"] + 1e-6))),
    "a NaN": ("json.strict", lambda p: p.write_text(p.read_text().replace('"max": 3.5', '"max": NaN'))),
    "a store byte": ("store.live", lambda p: (p.parent / "store" / "dense.f32").write_bytes(b"dense!")),
    "an unknown config field": ("config.complete", lambda p: _edit_json(p, lambda a: a["receipt"]["retrieval"][
        "config"].update(boost=2))),
    "a history event": ("ledger.chain", _edit_history),
}


def run_self_test() -> int:
    from .cli import validate

    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        clean = generate(Path(tmp) / "clean")
        report = validate(clean, embeddings=False)
        unexpected = [c.line() for c in report.failed]
        print(f"clean run: {len(report.checks)} checks, {len(report.failed)} failed, "
              f"{len(report.not_verified)} not verified (expected: source.git, embeddings.model)")
        if sorted(c.name for c in report.not_verified) != ["embeddings.model", "source.git"]:
            failures.append(f"unexpected not-verified checks: {[c.name for c in report.not_verified]}")
        failures += unexpected
        for what, (check, tamper) in TAMPERING.items():
            copy = Path(tmp) / what.replace(" ", "-")
            shutil.copytree(clean.parent, copy)
            _repoint(copy / clean.name, clean.parent, copy)
            tamper(copy / clean.name)
            tampered = validate(copy / clean.name, embeddings=False)
            caught = any(c.name == check for c in tampered.failed)
            print(f"tampered ({what}): {'caught by ' + check if caught else 'NOT CAUGHT'}")
            if not caught:
                failures.append(f"{what} was not caught by {check}")
    print("self-test passed" if not failures else "self-test FAILED:\n" + "\n".join(failures))
    return 0 if not failures else 1


def _repoint(aggregate: Path, old: Path, new: Path) -> None:
    """The copy's receipt names the clean run's files; make it name its own (digests are unchanged)."""
    aggregate.write_text(aggregate.read_text(encoding="utf-8").replace(str(old), str(new)), encoding="utf-8")
