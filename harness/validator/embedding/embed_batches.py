"""The validator's own equal-length batching for re-embedding (it shares no code with the harness).

Prompts with the same number of word pieces, after the model's cut at its token limit, go through the
model together: such a batch needs no padding, so every vector is the one the prompt alone gives (the
harness proves this byte for byte on all 5,483 SciFact prompts). Prompts shorter than MIN_BATCHED_LENGTH
word pieces are embedded one at a time: for a handful of rows the matrix kernels can round differently.
A batch holds at most MAX_BATCH_TOKENS word pieces in all (its size only changes speed, never a byte).

Each forward pass runs on one thread (with several, some CPUs' matrix kernels round by the batch's shape and the
thread count); as many passes run at once as this process has cores, one per worker thread. The tokenizer is only
ever called from the calling thread: a fast tokenizer is one shared object that two threads cannot call at once.
"""

import os
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

MAX_BATCH = 32
MAX_BATCH_TOKENS = 2048
MIN_BATCHED_LENGTH = 16


def _plan(model: Any, prompts: list[str]) -> list[list[int]]:
    limit = model.max_seq_length
    groups: dict[int, list[int]] = defaultdict(list)
    # cut at the model's limit, as the model itself cuts (the truncation is deliberate: no warning about it)
    tokenized = model.tokenizer(prompts, add_special_tokens=True, truncation=True, max_length=limit)
    for position, ids in enumerate(tokenized["input_ids"]):
        groups[len(ids)].append(position)
    plan: list[list[int]] = []
    for length, positions in sorted(groups.items()):
        size = max(1, min(MAX_BATCH, MAX_BATCH_TOKENS // length)) if length >= MIN_BATCHED_LENGTH else 1
        plan += [positions[start:start + size] for start in range(0, len(positions), size)]
    return plan


def _one_thread_each() -> None:
    import torch

    torch.set_num_threads(1)


def _vectors(model: Any, features: dict[str, Any]) -> list[list[float]]:
    import torch

    with torch.inference_mode():
        output = model(features)["sentence_embedding"]
    cut = getattr(model, "truncate_dim", None)
    rows = (output if cut is None else output[:, :cut]).float().cpu().tolist()
    return [list(map(float, row)) for row in rows]


def _cores() -> int:
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)


def embed_in_equal_length_batches(model: Any, prompts: list[str],
                                  progress: Callable[[int], None] | None = None) -> list[list[float]]:
    """One float vector per prompt, in the given order; `progress` is told how many prompts each batch embedded."""
    import torch

    tokenize = model.preprocess if hasattr(model, "preprocess") else model.tokenize
    vectors: list[list[float]] = [[] for _ in prompts]
    plan = _plan(model, prompts)
    workers = max(1, _cores())
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with ThreadPoolExecutor(max_workers=workers, initializer=_one_thread_each) as pool:
            for first in range(0, len(plan), 4 * workers):  # a few batches per worker tokenized ahead
                window = plan[first:first + 4 * workers]
                inputs = []
                for batch in window:
                    features = tokenize([prompts[p] for p in batch])
                    inputs.append({k: v.to(model.device) if hasattr(v, "to") else v for k, v in features.items()})
                for batch, rows in zip(window, pool.map(lambda f: _vectors(model, f), inputs), strict=True):
                    for position, row in zip(batch, rows, strict=True):
                        vectors[position] = row
                    if progress is not None:
                        progress(len(batch))
    finally:
        torch.set_num_threads(threads)
    return vectors
