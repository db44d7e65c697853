"""Forward passes of one thread each, several at once: a prompt's bytes depend on neither its batch nor the cores.

With several threads inside one forward pass, the matrix kernels split the work by the batch's shape and the thread
count. On an AVX-512 Xeon with 2 threads (MKL's sgemm) a vector then changed with its batch and with the thread count,
by up to 1.6e-7 a component, in 408 of 450 SciFact prompts. On one thread, every batch gave every prompt the bytes of
its forward pass alone. So each pass runs on one thread, and the cores are used by running as many passes at once,
one per worker thread (torch releases the GIL inside its operators).

Tokenizing stays on the calling thread: a fast tokenizer keeps its truncation and padding as state on one shared
object, and two threads calling it at once fail ("Already borrowed"). The pass is sentence-transformers' own, as
`encode` runs it: `preprocess`, the model's modules, then `sentence_embedding` cut to the model's `truncate_dim`.
"""

import os
from collections import deque
from collections.abc import Generator, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np


def usable_cores() -> int:
    """The cores this process may run on (its affinity, as a container or taskset limits it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # no affinity on this platform
        return max(1, os.cpu_count() or 1)


def _features(model: Any, prompts: list[str]) -> dict[str, Any]:
    tokenize = getattr(model, "preprocess", None) or model.tokenize  # `tokenize` before sentence-transformers 6
    features: dict[str, Any] = tokenize(prompts)
    return {name: value.to(model.device) if hasattr(value, "to") else value for name, value in features.items()}


def _single_thread() -> None:
    import torch

    torch.set_num_threads(1)


def _pass(model: Any, features: dict[str, Any]) -> np.ndarray:
    import torch

    with torch.inference_mode():
        embedding = model(features)["sentence_embedding"]
    if getattr(model, "truncate_dim", None) is not None:
        embedding = embedding[..., :model.truncate_dim]
    if embedding.dtype == torch.bfloat16:
        embedding = embedding.float()
    return np.asarray(embedding.cpu().numpy())


def forward_passes(model: Any, batches: Iterable[list[str]], workers: int | None = None) -> Generator[np.ndarray]:
    """Each batch's vectors (one row per prompt, in its order), batch after batch in the given order. At most a few
    batches per worker are tokenized ahead. torch runs one thread per operator while this runs, and gets its former
    thread count back when it ends (or is closed)."""
    import torch

    count = usable_cores() if workers is None else workers
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with ThreadPoolExecutor(max_workers=count, initializer=_single_thread) as pool:
            pending: deque[Future[np.ndarray]] = deque()
            try:
                for prompts in batches:
                    pending.append(pool.submit(_pass, model, _features(model, prompts)))
                    while len(pending) > 2 * count:
                        yield pending.popleft().result()
                while pending:
                    yield pending.popleft().result()
            finally:
                for waiting in pending:
                    waiting.cancel()
    finally:
        torch.set_num_threads(before)
