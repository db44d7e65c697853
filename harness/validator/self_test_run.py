"""The self-test's run: a tiny, self-consistent set of artifacts written with no harness code.

It has every file a real run has (fixture and vectors, store parts and manifest, run ledger with its
hash-chained history, rows, aggregate); it records no git state, so 'source.git' stays not verified.
"""

import math
import platform
import struct
import sys
from pathlib import Path
from typing import Any

from .core import split_rule
from .core.digests import canonical, sha256_bytes, sha256_canonical, sha256_file, sha256_text
from .core.locations import FIXTURES, INTERPRETERS, NAME, SOURCES, STORES
from .core.source_tree import HARNESS_DIR, harness_source_digest, harness_source_files
from .receipt.check_bindings import FROZEN_BASELINE
from .retrieval import ir_metrics
from .retrieval.bm25 import BM25, Tokenizer
from .self_test_inputs import (
    CAPABILITIES,
    CONTRACT,
    DOCS,
    FAILED,
    LEXICAL,
    QUERIES,
    RUN,
    TOKENIZER,
    write_fixture,
    write_json,
    write_ledger,
    write_store,
)


def _config() -> dict[str, Any]:
    config: dict[str, Any] = dict.fromkeys(("dense_backend", "dense_exactness", "dense_dtype", "tie_break",
                                            "query_vectors"), "self-test")
    config.update(FROZEN_BASELINE, top_k=10, rrf_k=60, hybrid_candidate_depth=100, lexical=LEXICAL)
    return config


def _ranking(text: str, config: dict[str, Any]) -> list[tuple[str, float]]:
    """The lexical ranking, scored as a float32 engine would report it."""
    bm25 = BM25(list(DOCS.values()), Tokenizer.from_record(TOKENIZER), config["lexical"]["k1"],
                config["lexical"]["b"])
    scores = bm25.score(text).scores
    ranked = sorted((i for i in range(len(DOCS)) if scores[i] > 0), key=lambda i: (-scores[i], list(DOCS)[i]))
    return [(list(DOCS)[i], struct.unpack("<f", struct.pack("<f", scores[i]))[0]) for i in ranked][:10]


def _system(config: dict[str, Any]) -> dict[str, Any]:
    root = HARNESS_DIR.parent
    files = {p.relative_to(root).as_posix(): sha256_file(p) for p in harness_source_files()}
    return {"name": "builtin", "spec": "builtin", "version": "self-test", "package": None,
            "configuration_sha256": sha256_canonical(config),
            "source": {"sha256": harness_source_digest(), "rule": "self-test", "root": root.name, "files": files},
            "engine": {"name": "self-test", "version": "self-test"},
            "declarations": {"dense": "exact_inner_product", "lexical": "self-test",
                             "fusion": {"method": "rrf", "k": 60, "candidate_depth": 100}}, "options": {},
            "modules": {}, "distributions": {}, "distribution_files": {}, "environment": {}}


def _row(query_id: str, store: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    text, qrels = QUERIES[query_id]
    mapping = {d: i for i, d in enumerate(DOCS, start=1)}
    scored = [] if query_id == FAILED else _ranking(text, config)
    ranking = [doc for doc, _ in scored]
    results = [{"rank": i, "doc_id": d, "fact_id": mapping[d], "score": score,
                "lanes": {"lexical": {"rank": i, "score": score}}} for i, (d, score) in enumerate(scored, start=1)]
    error = None if query_id != FAILED else "RuntimeError: self-test failure row"
    receipt: dict[str, Any] = {"request_id": f"self/run-1/{query_id}", "mode": "fts_only",
                               "query_sha256": sha256_text(text), "result_count": len(results)}
    if error is None:
        receipt.update(results_sha256=sha256_canonical([[r["doc_id"], r["fact_id"], r["score"]] for r in results]),
                       config_sha256=sha256_canonical(config), store_sha256=store["store_sha256"], top_k=10,
                       namespace=store["namespace"],
                       lanes={"lexical": {"query_tokens": [text], "candidates": len(results), "depth": len(results)}})
    else:
        receipt["error"] = error
    return {"schema": "semantic-memory-scifact-query-v1", "mode": "fts_only", "split": "calibration",
            "query_id": query_id,
            "query_sha256": sha256_text(text), "qrels": qrels, "ranked_doc_ids": ranking, "results": results,
            "latency_ms": 0.5 + len(ranking), "error": error,
            "metrics": ir_metrics.compute(ranking, qrels, ir_metrics.TREC_EVAL),
            "request_id": receipt["request_id"], "search_receipt": receipt,
            "search_receipt_sha256": sha256_canonical(receipt)}


def generate(root: Path) -> Path:
    root.mkdir(parents=True)
    fixture_path, fixture = write_fixture(root)
    store, config = write_store(root, sha256_file(fixture_path)), _config()
    order = split_rule.selection(list(QUERIES), "calibration", len(QUERIES))
    rows = [_row(q, store, config) for q in order]
    data = b"".join(canonical(row) + b"\n" for row in rows)
    (root / "scifact-fts_only-calibration.jsonl").write_bytes(data)
    latencies = [r["latency_ms"] for r in rows]
    metrics: dict[str, Any] = {k: math.fsum(r["metrics"][k] for r in rows) / len(rows) for k in ir_metrics.KEYS}
    firsts = sorted(r["ranked_doc_ids"][0] for r in rows if r["ranked_doc_ids"])
    metrics.update(
        latency_ms={"mean": math.fsum(latencies) / len(rows), "p50": ir_metrics.nearest_rank(latencies, 0.5),
                    "p95": ir_metrics.nearest_rank(latencies, 0.95), "max": max(latencies)},
        failures=1, result_count_distribution={"0": 1, "2": 2},
        unique_retrieved_docs=len({d for r in rows for d in r["ranked_doc_ids"]}),
        repeated_top1={"doc_id": firsts[0], "count": 1, "frequency": 1 / len(rows)})
    interpreter = Path(sys.executable).resolve()
    embedding = {**fixture["embedding"], "semantic_text": fixture["semantic_text"], "profile": fixture["profile"]}
    receipt = {
        "run": dict(RUN),
        "executable": {"interpreter": Path(sys.executable).name, "interpreter_sha256": sha256_file(interpreter),
                       "python_version": platform.python_version(), "implementation": platform.python_implementation(),
                       "argv": ["self-test"], "launcher": None},
        "source": {"harness": {"sha256": harness_source_digest(), "files": len(harness_source_files()),
                               "rule": "self-test"},
                   "git": {"available": False, "reason": "self-test"},
                   "distribution": {"available": False, "reason": "self-test"}},
        "dependencies": {"numpy": "x", "bm25s": "x", "PyStemmer": "x", "jsonschema": "x"},
        "corpus": {"ir_datasets_id": None, "fixture_file": fixture_path.name,
                   "fixture_sha256": sha256_file(fixture_path), "vectors_sha256": fixture["vectors"]["sha256"],
                   "source": fixture["source"],
                   "payload_hashes": fixture["payload_hashes"], "contract": CONTRACT, "counts": fixture["counts"],
                   "builder_version": fixture["builder_version"]},
        "embedding": embedding,
        "system": _system(config),
        "store": store,
        "retrieval": {"mode": "fts_only", "top_k": 10, "config": config, "config_sha256": sha256_canonical(config),
                      "backend": None,
                      "lexical": TOKENIZER,
                      "latency_scope": "self-test", "latency_timer": "self-test"},
        "split": {"name": "calibration", "algorithm": "self-test", "calibration_count": len(QUERIES),
                  "total_count": len(QUERIES),
                  "selected_count": len(order), "selected_ids_sha256": sha256_canonical(order)},
        "capabilities": {name: {"available": False, "config_field": field,
                                "baseline_value": FROZEN_BASELINE.get(field) if field else None, "reason": "self-test"}
                         for name, field in CAPABILITIES.items()},
        "machine": {"hostname": "self-test", "cpu_model": "self-test", "logical_cores": 1, "usable_cores": 1,
                    "memory_bytes": None, "os": "self-test", "machine": "self-test", "blas": [],
                    "xdist_worker": None, "xdist_workers": None},
        "claim_boundary": {"supports_lead": "w", "supports": ["x"], "does_not_establish": ["y"], "statement": "z"},
        "profile": fixture["profile"],
        "measures": ir_metrics.TREC_EVAL.record(),  # a generated corpus has no pins: trec_eval's conventions
        "freeze": None,
        "heldout_looks": None,
        "ledger": None,  # below: its run-started event binds the source block above
        "latency_measurement": {
            "warmup_calls": 0, "repeats_per_query": 1, "statistic": "self-test",
            "thread_policy": {"blas": [], "pinned": False, "note": "self-test"}, "usable_cores": 1,
            "load_average_before": None, "load_average_after": None, "timed_wall_seconds": 1.0,
            "process_cpu_seconds": 1.0, "runqueue_wait_seconds": None, "rule": "self-test", "contended": None,
            "contention": "contention unknown: the self-test measures nothing (load average before, load average "
                          "after, run-queue wait)"},
    }
    receipt["ledger"] = write_ledger(root / "store", receipt["source"])
    aggregate = {"schema": "semantic-memory-scifact-aggregate-v2", "mode": "fts_only", "split": "calibration",
                 "row_count": len(rows), "per_query_path": "scifact-fts_only-calibration.jsonl",
                 "per_query_sha256": sha256_bytes(data), "metrics": metrics, "receipt": receipt}
    path = root / "scifact-fts_only-calibration.aggregate.json"
    write_json(path, aggregate)
    # the run's local sidecar, as `locations` reads it: the receipt itself names no place
    write_json(root / NAME, {FIXTURES: {receipt["corpus"]["fixture_sha256"]: str(fixture_path)},
                             STORES: {store["store_sha256"]: str(root / "store")},
                             SOURCES: {receipt["system"]["source"]["sha256"]: str(HARNESS_DIR.parent)},
                             INTERPRETERS: {receipt["executable"]["interpreter_sha256"]: str(interpreter)}})
    return path
