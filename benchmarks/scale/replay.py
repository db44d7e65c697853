"""The validator's replay of the built-in system's rows, through the validator's own functions only.

As `load_replay` does for a receipt: the live store read by the validator (`load_live_store`), its own BM25 over
the documents' text in fact-id order, the `Replay` of both lanes; then `check_replay` on each mode's rows, with a
context holding just what the replay reads of an aggregate (mode, system name, top_k and fusion parameters).
"""

import json
import time
from pathlib import Path
from typing import Any

from benchmarks.scale.synthetic import SyntheticCorpus
from harness.validator.core.context import Context
from harness.validator.core.report import PASS, Report
from harness.validator.replay.check_replay import check_replay
from harness.validator.retrieval.bm25 import BM25, Tokenizer
from harness.validator.retrieval.lanes import Replay
from harness.validator.retrieval.live_store import load_live_store
from harness.validator.retrieval.ranking import id_ranks

MODES = ("fts_only", "vector_only", "hybrid")
CONFIG = {"lexical": {"k1": 1.5, "b": 0.75}, "hybrid_candidate_depth": 100, "rrf_k": 60}


def _context(mode: str, rows_path: Path, top_k: int) -> Context:
    rows = [json.loads(line) for line in rows_path.read_text(encoding="utf-8").splitlines()]
    aggregate = {"mode": mode, "split": "all",
                 "receipt": {"system": {"name": "builtin"}, "retrieval": {"top_k": top_k, "config": CONFIG}}}
    return Context(rows_path, aggregate, rows_path, rows, None, None, None, None)


def replay(corpus: SyntheticCorpus, store: Path, rows_dir: Path, top_k: int) -> dict[str, Any]:
    started = time.perf_counter()
    manifest = json.loads((store / "store.json").read_text(encoding="utf-8"))
    mapping = json.loads((store / "mapping.json").read_text(encoding="utf-8"))
    live = load_live_store(store, manifest, mapping["doc_to_fact"], corpus.vectors.shape[1])
    by_fact = sorted(live.doc_to_fact, key=live.doc_to_fact.__getitem__)
    ordinal = {d: i for i, d in enumerate(corpus.doc_ids)}
    documents = (f"{corpus.titles[i].strip()} {corpus.texts[i].strip()}" for i in (ordinal[d] for d in by_fact))
    bm25 = BM25(documents, Tokenizer.from_record(live.tokenizer), 1.5, 0.75)  # the text made document by document
    lanes = Replay(by_fact, id_ranks(by_fact), live.vectors, bm25)
    figures: dict[str, Any] = {"replay_setup_seconds": time.perf_counter() - started, "replay_seconds": {},
                               "replay_cpu_seconds": {}, "replay_verdict": {}}
    vectors = dict(zip(corpus.query_ids, corpus.query_vectors, strict=True))
    texts = dict(zip(corpus.query_ids, corpus.query_texts, strict=True))
    for mode in MODES:
        ctx = _context(mode, rows_dir / f"{mode}.jsonl", top_k)
        report = Report(f"synthetic {mode}")
        started, cpu = time.perf_counter(), time.process_time()
        check_replay(ctx, report, lanes, vectors, texts)
        figures["replay_seconds"][mode] = time.perf_counter() - started
        figures["replay_cpu_seconds"][mode] = time.process_time() - cpu
        failed = [check.line() for check in report.checks if check.status != PASS]
        figures["replay_verdict"][mode] = failed[0] if failed else "pass"
    return figures
