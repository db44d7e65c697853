"""The self-test's primary data: a tiny fixture with its vectors, a store with its parts and manifest, and a
run ledger with its hash-chained history, all written with no harness code."""

import hashlib
import json
import math
import sqlite3
import struct
from pathlib import Path
from typing import Any

from .core.digests import canonical, directory_digest, sha256_bytes, sha256_canonical, sha256_file
from .history.ledger_chain import GENESIS, LEDGER, chain_digest

DOCS = {"a": "alpha beta", "b": "beta gamma", "c": "gamma delta", "d": "delta alpha"}
QUERIES = {"q1": ("alpha", {"a": 1}), "q2": ("gamma", {"b": 1, "c": 1}), "q3": ("delta", {"d": 1})}
FAILED = "q3"  # a failed query: its row ranks nothing and scores zero
TOKENIZER = {"token_pattern": r"(?u)\b\w\w+\b", "lowercase": True, "stopwords": ["the"],
             "stopwords_sha256": sha256_canonical(["the"]),
             "stemmer": {"library": "PyStemmer", "algorithm": "english", "version": "self-test"}}


def write_json(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=1), encoding="utf-8")


CONTRACT = {"name": "self-test", "documents": len(DOCS), "test_queries": len(QUERIES),
            "test_qrel_pairs": sum(len(qrels) for _, qrels in QUERIES.values()),
            "semantic_text_max_code_points": 700, "document_prefix": "", "query_prefix": "", "namespace": "self-test",
            "top_k": 10, "calibration_count": len(QUERIES)}
PROFILE = {"name": "scifact-contract", "is_contract": True, "max_code_points": 700, "document_prefix": "",
           "query_prefix": "", "description": "self-test"}
LEXICAL = {"method": "lucene", "k1": 1.5, "b": 0.75, "lowercase": True, "token_pattern": r"(?u)\b\w\w+\b",
           "stopwords": "self-test", "stemmer": "self-test", "text": "self-test"}
# capability -> the configuration field that would ask for it (None: no switch exists)
CAPABILITIES = {"sparse": "sparse_weight", "dense_derived_sparse": "dense_derived_sparse",
                "late_interaction": "late_interaction_weight", "matryoshka": "candidate_dims", "recency": "recency",
                "derived_vector_backend": "derived_vector_backend", "graph": None}
ARCHIVE = b"self-test archive"
_MODEL_FILES = {"model.safetensors": sha256_bytes(b"weights"), "modules.json": sha256_bytes(b"modules")}
IDENTITY = {"backend": "sentence-transformers", "model": "self-test", "weights_sha256": sha256_bytes(b"weights"),
            "model_files_sha256": sha256_canonical(_MODEL_FILES), "max_seq_length": 256, "libraries": {},
            "device": "cpu", "batch_size": 1, "revision": None, "files": _MODEL_FILES,
            "vector_shape": {"modules": [], "max_seq_length": 256, "prompts": {}, "default_prompt_name": None,
                             "similarity_fn_name": None}}
TIMESTAMP = "2020-01-01T00:00:00Z"


def _vector(i: int) -> bytes:
    return struct.pack("<2f", math.cos(i), math.sin(i))


def _source() -> dict[str, Any]:
    member = canonical([{"doc_id": d, "text": t} for d, t in DOCS.items()])
    digest = sha256_bytes(member)
    return {"kind": "local-file", "url": None, "archive_sha256": sha256_bytes(ARCHIVE),
            "archive_md5": hashlib.md5(ARCHIVE, usedforsecurity=False).hexdigest(), "archive_bytes": len(ARCHIVE),
            "members": {"self-test/corpus.jsonl": {"bytes": len(member), "sha256": digest, "pinned_sha256": digest,
                                                   "matches_pin": True}},
            "unused_members": [], "payload_pinned": True, "allow_unpinned": False}


def write_fixture(root: Path) -> tuple[Path, dict[str, Any]]:
    documents = [{"doc_id": d, "title": "", "text": t, "semantic_text": t} for d, t in DOCS.items()]
    queries = [{"query_id": q, "text": t, "semantic_text": t, "qrels": r} for q, (t, r) in QUERIES.items()]
    vectors = b"".join(_vector(i) for i in range(len(DOCS) + len(QUERIES)))
    vectors_sha = sha256_bytes(vectors)
    sidecar = f"f.vectors-{vectors_sha.removeprefix('sha256:')[:16]}.f32"
    (root / sidecar).write_bytes(vectors)
    docs_key = sorted(({"doc_id": d["doc_id"], "title": "", "text": d["text"]} for d in documents),
                      key=lambda d: d["doc_id"])
    fixture = {
        "schema": "scifact-corpus-fixture-v1", "builder_version": "self-test", "contract": CONTRACT,
        "profile": PROFILE, "source": _source(),
        "payload_hashes": {"canonical_json": "self-test", "documents": sha256_canonical(docs_key),
                           "queries": sha256_canonical([{"query_id": q, "text": t} for q, (t, _) in QUERIES.items()]),
                           "qrels": sha256_canonical({q: r for q, (_, r) in QUERIES.items()}),
                           "definitions": {"documents": "self-test", "queries": "self-test", "qrels": "self-test"}},
        "semantic_text": {"document_rule": "self-test", "query_rule": "self-test", "max_code_points": 700,
                          "document_prefix": "", "query_prefix": "", "documents_truncated": 0,
                          "queries_truncated": 0},
        "embedding": {"backend": "sentence-transformers", "model": "self-test", "identity": IDENTITY,
                      "identity_sha256": sha256_canonical(IDENTITY), "endpoint": None, "dimensions": 2,
                      "normalization": "self-test",
                      "truncation_policy": {"model_token_limit": 256, "model_truncation": "self-test",
                                            "prompt_retries": "none"},
                      "retried_prompts": [], "prompts_truncated_by_model": 0},
        "vectors": {"file": sidecar, "sha256": vectors_sha, "dtype": "float32", "byte_order": "little",
                    "rows": len(DOCS) + len(QUERIES), "dimensions": 2, "layout": "self-test"},
        "counts": {"documents": len(DOCS), "queries": len(QUERIES), "qrel_pairs": CONTRACT["test_qrel_pairs"]},
        "documents": documents, "queries": queries,
    }
    write_json(root / "f.json", fixture)
    return root / "f.json", fixture


def write_store(root: Path, fixture_sha: str) -> dict[str, Any]:
    store = root / "store"
    (store / "lexical").mkdir(parents=True)
    connection = sqlite3.connect(store / "facts.sqlite3")
    with connection:
        connection.execute("CREATE TABLE facts (fact_id INTEGER PRIMARY KEY, namespace TEXT, ordinal INTEGER, "
                           "title TEXT, body TEXT, dims INTEGER, vector BLOB)")
        connection.executemany("INSERT INTO facts VALUES (?, 'self-test', ?, '', ?, 2, ?)",
                               [(i + 1, i, text, _vector(i)) for i, text in enumerate(DOCS.values())])
    connection.close()
    write_json(store / "lexical" / "tokenizer.json", TOKENIZER)
    (store / "dense.f32").write_bytes(b"".join(_vector(i) for i in range(len(DOCS))))  # fact order = fixture order
    write_json(store / "mapping.json", {"schema": "scifact-store-mapping-v1", "namespace": "self-test",
                                         "fixture_sha256": fixture_sha, "documents": len(DOCS),
                                         "doc_to_fact": {d: i for i, d in enumerate(DOCS, start=1)}})
    parts = {"database": "facts.sqlite3", "mapping": "mapping.json", "lexical": "lexical", "dense": "dense.f32"}
    digests = {n: directory_digest(store / p) if (store / p).is_dir() else sha256_file(store / p)
               for n, p in parts.items()}
    binding = {"namespace": "self-test", "fixture_sha256": fixture_sha, "documents": len(DOCS), "dimensions": 2,
               "embedding_identity_sha256": sha256_canonical(IDENTITY), "lexical": LEXICAL}
    write_json(store / "store.json", {"schema": "scifact-store-v1", "binding": binding,
                                       "parts": {n: {"path": p, "sha256": digests[n]} for n, p in parts.items()},
                                       "store_sha256": sha256_canonical(digests)})
    return {"directory_name": store.name, "namespace": "self-test", "document_count": len(DOCS),
            "database_file": "facts.sqlite3", "database_sha256": digests["database"],
            "mapping_file": "mapping.json", "mapping_sha256": digests["mapping"],
            "lexical_sha256": digests["lexical"], "dense_sha256": digests["dense"],
            "store_sha256": sha256_canonical(digests), "before_run_sha256": sha256_canonical(digests),
            "after_run_sha256": sha256_canonical(digests), "digest_rule": "self-test"}


RUN = {"run_id": "self/run-1", "sequence": 1, "started_at": TIMESTAMP, "finished_at": TIMESTAMP,
       "request_id_rule": "<run_id>/<query_id>"}


def write_ledger(store: Path, source: dict[str, Any]) -> dict[str, Any]:
    """The store's run ledger: the runs table and a two-event history, chained by the rule it states, its run-started
    event binding the receipt's `source` block."""
    events = [{"event": "run-started", "run_id": RUN["run_id"], "mode": "fts_only", "split": "calibration",
               "sequence": RUN["sequence"], "started_at": RUN["started_at"],
               "source_sha256": sha256_canonical(source)},
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
    return {"file": LEDGER, "rule": "self-test", "run_started": {"position": 1, "digest": first},
            "freeze": None}
