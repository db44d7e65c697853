"""Embed the SciFact prompts two ways side by side, in one process: batch size 1 (the path before
equal-length batching) and batches of equal token length (the harness's LocalEmbedder), then compare
every vector byte for byte.

    .venv/bin/python scripts/embedding_batching.py --archive PATH [--limit N | --length-stride K] [--max-batch 32]
        [--json OUT]
    .venv/bin/python scripts/embedding_batching.py --fixture work-dir/scifact-corpus.json [...]

The prompts are the build's own (`harness.fixture.build.embedding_requests` on the archive, or the
fixture's semantic texts with its prefixes). The machine may be busy with other work, so the two schemes
are interleaved batch by batch: for each equal-length batch of the plan, its prompts are embedded one at
a time and then as one batch (which goes first alternates), so load that comes and goes falls on both.
The new path's time includes its extra tokenization (the `arrange` call over all prompts). Each scheme's
texts/s is the prompt count over its summed wall time; process CPU time and the load average before and
after are printed too. Vectors are compared as the model returns them (float32) and as the harness
stores them (L2-normalised float64, then float32): both must be byte-identical row for row.

`--caches A B` compares two embedding-cache directories instead, record by record (same model identity,
vectors as stored): for instance a cold build made with batch size 1 (before equal-length batching) and
one made with it, over all 5,483 prompts. It prints how many prompts both hold and how many are
byte-identical, and exits 1 when any differs.

`--batch1-into DIR --skip DIR2` embeds one prompt per forward pass (the path before batching), last
prompt first, every prompt that neither DIR2 (a build in progress, read again every 50 prompts) nor DIR
holds, into an embedding cache of its own in DIR; `--caches A B DIR` then compares A against B and DIR
together. This completes a batch-size-1 reference over all prompts while another build is still making it.

`--padded N` adds, for contrast only, length-sorted padded batches of N over the same prompts (that
scheme changes bytes and is never used by the harness).
"""

import argparse
import base64
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.corpus.contract import scifact_contract  # noqa: E402
from harness.corpus.dataset import load_dataset  # noqa: E402
from harness.embedding.embedders.base import EmbeddingRequest  # noqa: E402
from harness.embedding.embedders.batching import DEFAULT_MAX_BATCH, batches  # noqa: E402
from harness.embedding.embedders.local import LocalEmbedder  # noqa: E402
from harness.embedding.profiles import text_profile  # noqa: E402
from harness.embedding.vectors import check_and_normalize  # noqa: E402
from harness.fixture.build import embedding_requests  # noqa: E402


def _requests(args: argparse.Namespace) -> list[EmbeddingRequest]:
    if args.fixture is not None:
        fixture = json.loads(args.fixture.read_text(encoding="utf-8"))
        profile = fixture["profile"]
        requests = [EmbeddingRequest(f"document:{d['doc_id']}", profile["document_prefix"], d["semantic_text"])
                    for d in fixture["documents"]]
        return requests + [EmbeddingRequest(f"query:{q['query_id']}", profile["query_prefix"], q["semantic_text"])
                           for q in fixture["queries"]]
    archive = args.archive or os.environ.get("SCIFACT_ARCHIVE")
    if not archive:
        raise SystemExit("pass --archive PATH or --fixture PATH (or set SCIFACT_ARCHIVE)")
    contract = scifact_contract()
    dataset = load_dataset(Path(archive), contract)
    return embedding_requests(dataset, text_profile("scifact-contract", contract))[2]


def _today(model: Any, request: EmbeddingRequest) -> np.ndarray:
    """The embedder's path before equal-length batching, call for call."""
    vector = model.encode([request.prompt], batch_size=1, convert_to_numpy=True, show_progress_bar=False)[0]
    model.tokenizer(request.prompt, add_special_tokens=True)  # it measured each prompt's length as well
    return np.asarray(vector)


def _summary(requests: list[EmbeddingRequest], today: dict[str, np.ndarray], new: dict[str, np.ndarray],
             today_seconds: float, new_seconds: float) -> dict[str, Any]:
    """The comparison over the prompts both schemes have embedded so far."""
    done = [r for r in requests if r.text_id in today and r.text_id in new]
    raw_same = sum(today[r.text_id].astype("<f4").tobytes() == new[r.text_id].astype("<f4").tobytes() for r in done)
    stored_same = sum(check_and_normalize(r.text_id, today[r.text_id], None).tobytes()
                      == check_and_normalize(r.text_id, new[r.text_id], None).tobytes() for r in done)
    differing = [r.text_id for r in done
                 if today[r.text_id].astype("<f4").tobytes() != new[r.text_id].astype("<f4").tobytes()]
    largest = max((float(np.max(np.abs(today[r.text_id] - new[r.text_id]))) for r in done), default=0.0)
    return {"compared": len(done), "of": len(requests),
            "batch1_seconds": round(today_seconds, 2),
            "batch1_texts_per_s": round(len(done) / today_seconds, 2) if today_seconds else None,
            "equal_length_seconds": round(new_seconds, 2),
            "equal_length_texts_per_s": round(len(done) / new_seconds, 2) if new_seconds else None,
            "speedup": round(today_seconds / new_seconds, 3) if new_seconds else None,
            "byte_identical_raw": raw_same, "byte_identical_stored": stored_same,
            "differing": differing[:20], "largest_component_difference": largest}


def _cache_records(directory: Path) -> dict[str, dict[str, bytes]]:
    """{cache file stem: {prompt sha256: vector bytes}} of every cache file in a directory."""
    files: dict[str, dict[str, bytes]] = {}
    for path in sorted(directory.glob("*.jsonl")):
        records = files.setdefault(path.stem, {})
        data = path.read_bytes()
        for line in data[: data.rfind(b"\n") + 1].splitlines():  # a build still writing: skip its torn last line
            record = json.loads(line)
            records[record["prompt_sha256"]] = base64.b64decode(record["vector"])
    return files


def compare_caches(first: Path, *others: Path) -> int:
    a: dict[str, dict[str, bytes]] = _cache_records(first)
    b: dict[str, dict[str, bytes]] = {}
    for other in others:
        for stem, records in _cache_records(other).items():
            b.setdefault(stem, {}).update(records)
    result: dict[str, Any] = {}
    for stem in sorted(set(a) & set(b)):
        shared = set(a[stem]) & set(b[stem])
        same = sum(a[stem][key] == b[stem][key] for key in shared)
        result[stem] = {"first": len(a[stem]), "second": len(b[stem]), "both": len(shared), "byte_identical": same}
    print(json.dumps(result or {"error": "no cache file of the same model identity in both"}, indent=2))
    return 0 if result and all(r["both"] == r["byte_identical"] for r in result.values()) else 1


def fill_batch1(requests: list[EmbeddingRequest], into: Path, skip: Path) -> int:
    from harness.embedding.cache import CachedVector, EmbeddingCache
    from harness.hashing import sha256_text

    embedder = LocalEmbedder(max_batch=1)
    model = embedder._load()
    cache = EmbeddingCache(into, embedder.identity())
    cache.open()
    done = 0
    try:
        taken: set[str] = set()
        for number, request in enumerate(reversed(requests)):
            if number % 50 == 0:
                taken = {key for records in _cache_records(skip).values() for key in records}
                print(json.dumps({"looked_at": number, "embedded": done, "other_build_holds": len(taken),
                                  "load": os.getloadavg()}), file=sys.stderr, flush=True)
            if sha256_text(request.prompt) in taken or cache.get(request.prompt) is not None:
                continue
            raw = _today(model, request)
            cache.put(request.prompt, CachedVector(check_and_normalize(request.text_id, raw, None), None,
                                                   len(model.tokenizer(request.prompt)["input_ids"])
                                                   > model.max_seq_length))
            done += 1
    finally:
        cache.close()
    print(json.dumps({"embedded": done}))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--archive", type=Path)
    source.add_argument("--fixture", type=Path)
    parser.add_argument("--limit", type=int, default=None, help="only the first N prompts")
    parser.add_argument("--length-stride", type=int, default=None,
                        help="only prompts whose token count (as the model cuts it) is a multiple of K: a sample "
                             "whose batches are as full as a whole build's (the benchmark suite uses 16)")
    parser.add_argument("--max-batch", type=int, default=DEFAULT_MAX_BATCH)
    parser.add_argument("--padded", type=int, default=0, help="also time padded batches of N (contrast)")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--caches", type=Path, nargs="+", metavar="DIR", default=None)
    parser.add_argument("--batch1-into", type=Path, default=None)
    parser.add_argument("--skip", type=Path, default=None)
    args = parser.parse_args()
    if args.caches is not None:
        return compare_caches(*args.caches)
    if args.batch1_into is not None:
        return fill_batch1(_requests(args), args.batch1_into, args.skip or args.batch1_into)
    requests = _requests(args)[: args.limit]
    import torch

    embedder = LocalEmbedder(max_batch=args.max_batch)
    model = embedder._load()
    if args.length_stride:
        lengths = embedder._lengths([r.prompt for r in requests])
        requests = [r for r, n in zip(requests, lengths, strict=True)
                    if min(n, model.max_seq_length) % args.length_stride == 0]
    _today(model, requests[0])  # warm both paths before timing
    list(embedder.embed(requests[:2]))
    load_before = os.getloadavg()
    cpu_started = time.process_time()
    wall_started = time.perf_counter()
    started = time.perf_counter()
    arranged = embedder.arrange(requests)
    new_seconds = time.perf_counter() - started
    lengths = [min(n, model.max_seq_length) for n in embedder._lengths([r.prompt for r in arranged])]
    plan = batches(lengths, args.max_batch)
    today: dict[str, np.ndarray] = {}
    new: dict[str, np.ndarray] = {}
    today_seconds = 0.0
    for number, batch in enumerate(plan):
        chunk = [arranged[position] for position in batch]
        for first in ((0, 1) if number % 2 == 0 else (1, 0)):
            started = time.perf_counter()
            if first == 0:
                for request in chunk:
                    today[request.text_id] = _today(model, request)
                today_seconds += time.perf_counter() - started
            else:
                for request, raw in zip(chunk, embedder.embed(chunk), strict=True):
                    new[request.text_id] = np.asarray(raw.values)
                new_seconds += time.perf_counter() - started
        if number % 25 == 0:
            partial = {**_summary(requests, today, new, today_seconds, new_seconds), "load": os.getloadavg()}
            print(json.dumps(partial), file=sys.stderr, flush=True)
    result: dict[str, Any] = {
        "prompts": len(requests), "batches": len(plan), "max_batch": args.max_batch,
        "mean_batch": round(len(requests) / len(plan), 2), "torch_threads": torch.get_num_threads(),
        **_summary(requests, today, new, today_seconds, new_seconds),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "process_cpu_seconds": round(time.process_time() - cpu_started, 1),
        "wall_seconds": round(time.perf_counter() - wall_started, 1), "cores": os.cpu_count(),
    }
    if args.padded:
        started = time.perf_counter()
        vectors = model.encode([r.prompt for r in arranged], batch_size=args.padded, convert_to_numpy=True,
                               show_progress_bar=False)
        padded_seconds = time.perf_counter() - started
        same = sum(v.astype("<f4").tobytes() == today[r.text_id].astype("<f4").tobytes()
                   for r, v in zip(arranged, vectors, strict=True))
        result.update({f"padded{args.padded}_texts_per_s": round(len(requests) / padded_seconds, 2),
                       f"padded{args.padded}_byte_identical": same,
                       f"padded{args.padded}_note": "timed after the interleaved pair, not beside it"})
    print(json.dumps(result, indent=2))
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0 if result["byte_identical_raw"] == result["byte_identical_stored"] == len(requests) else 1


if __name__ == "__main__":
    raise SystemExit(main())
