"""What one measuring process does: build a system's store, or open it and search every query in every mode, or
replay the built-in system's rows with the validator's own functions. Each returns its timings as JSON-ready data.

The built-in store is built by the store builder itself (`BuiltinBuilder`), from the corpus held as an in-memory
fixture; Milvus Lite by `MilvusSystem` called directly, as the plugin worker calls it (no worker process between).
Each search is timed around the system's `search` call, as the runner and the plugin worker time it (wall time), and
by the process's CPU time beside it (less sensitive to other work on a shared machine); one untimed
search per mode comes first, so the first query does not carry loading the collection or warming caches.
"""

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.scale.synthetic import NAMESPACE, SyntheticCorpus
from harness.modes import SEARCHED as MODES
from harness.modes import mode as declared_mode
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.system import BuiltinBuilder, BuiltinSystem
from harness.systems.milvus.system import MilvusSystem

SYSTEMS = ("builtin", "milvus")
TOP_K = 10


def _builder() -> BuiltinBuilder:
    return BuiltinBuilder(NAMESPACE, SearchConfig(top_k=TOP_K))


def build(system: str, corpus: SyntheticCorpus, store: Path) -> dict[str, Any]:
    store.mkdir(parents=True, exist_ok=True)
    started, cpu = time.perf_counter(), time.process_time()
    if system == "builtin":
        _builder().build(corpus.fixture(store / "synthetic.json"), store)
    else:
        MilvusSystem().build(corpus.corpus(), store)
    return {"build_seconds": time.perf_counter() - started, "build_cpu_seconds": time.process_time() - cpu}


def _row(system: BuiltinSystem, outcome: Any, query_id: str, text: str) -> dict[str, Any]:
    """A row in the shape the validator replays: the results with their lane evidence, and the search receipt."""
    receipt = system.search_receipt(outcome, text, query_id)
    row: dict[str, Any] = json.loads(json.dumps({
        "query_id": query_id, "error": None, "search_receipt": receipt,
        "results": [{"doc_id": hit.doc_id, "score": hit.score, "lanes": hit.lanes} for hit in outcome.hits]}))
    return row


def query(system: str, corpus: SyntheticCorpus, store: Path, rows_dir: Path | None,
          checkpoint: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """Open the store, then search every query in every mode; rows of the built-in system go to `rows_dir`. The
    figures so far are handed to `checkpoint` after each mode, so a phase stopped in a later mode keeps them."""
    started = time.perf_counter()
    if system == "builtin":
        opened: Any = _builder().open(corpus.fixture(store / "synthetic.json"), store)
    else:
        opened = MilvusSystem()
        opened.open(corpus.corpus(), store)
    figures: dict[str, Any] = {"open_seconds": time.perf_counter() - started, "latency_ms": {}}
    for mode in MODES:
        dense = declared_mode(mode).dense
        vectors = [corpus.query_vectors[i] if dense else None for i in range(len(corpus.query_ids))]
        opened.search(mode, corpus.query_texts[0], vectors[0], TOP_K)  # untimed warm-up
        latencies, cpu, rows = [], [], []
        for query_id, text, vector in zip(corpus.query_ids, corpus.query_texts, vectors, strict=True):
            started, cpu_started = time.perf_counter_ns(), time.process_time_ns()
            outcome = opened.search(mode, text, vector, TOP_K)
            latencies.append((time.perf_counter_ns() - started) / 1e6)
            cpu.append((time.process_time_ns() - cpu_started) / 1e6)
            if rows_dir is not None and isinstance(opened, BuiltinSystem):
                rows.append(_row(opened, outcome, query_id, text))
        figures["latency_ms"][mode] = {"p50": float(np.percentile(latencies, 50)),
                                       "p95": float(np.percentile(latencies, 95)), "queries": len(latencies),
                                       "cpu_p50": float(np.percentile(cpu, 50)),
                                       "cpu_p95": float(np.percentile(cpu, 95))}
        if rows_dir is not None and rows:
            rows_dir.mkdir(parents=True, exist_ok=True)
            (rows_dir / f"{mode}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        checkpoint(figures)
    if isinstance(opened, MilvusSystem):
        opened.close()
    return figures
