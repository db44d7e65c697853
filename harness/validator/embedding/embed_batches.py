"""The validator's own equal-length batching for re-embedding (it shares no code with the harness).

Prompts with the same number of word pieces, after the model's cut at its token limit, go through the
model together: such a batch needs no padding, so every vector is the one the prompt alone gives (the
harness proves this byte for byte on all 5,483 SciFact prompts). Prompts shorter than MIN_BATCHED_LENGTH
word pieces are embedded one at a time: for a handful of rows the matrix kernels can round differently.
A batch holds at most MAX_BATCH_TOKENS word pieces in all (its size only changes speed, never a byte).
"""

from collections import defaultdict
from collections.abc import Callable
from typing import Any

MAX_BATCH = 32
MAX_BATCH_TOKENS = 2048
MIN_BATCHED_LENGTH = 16


def embed_in_equal_length_batches(model: Any, prompts: list[str],
                                  progress: Callable[[int], None] | None = None) -> list[list[float]]:
    """One float vector per prompt, in the given order; `progress` is told how many prompts each batch embedded."""
    limit = model.max_seq_length
    groups: dict[int, list[int]] = defaultdict(list)
    # cut at the model's limit, as the model itself cuts (the truncation is deliberate: no warning about it)
    tokenized = model.tokenizer(prompts, add_special_tokens=True, truncation=True, max_length=limit)
    for position, ids in enumerate(tokenized["input_ids"]):
        groups[len(ids)].append(position)
    vectors: list[list[float]] = [[] for _ in prompts]
    for length, positions in sorted(groups.items()):
        size = max(1, min(MAX_BATCH, MAX_BATCH_TOKENS // length)) if length >= MIN_BATCHED_LENGTH else 1
        for start in range(0, len(positions), size):
            chunk = positions[start:start + size]
            encoded = model.encode([prompts[p] for p in chunk], batch_size=len(chunk), show_progress_bar=False)
            for position, vector in zip(chunk, encoded, strict=True):
                vectors[position] = list(map(float, vector))
            if progress is not None:
                progress(len(chunk))
    return vectors
