"""Forward passes of one thread each, several at once: the same bytes whatever the number of workers, the tokenizer
called from the calling thread only, and torch's thread count given back however the passes end."""

import threading
from typing import Any

import numpy as np
import pytest

from harness.embedding.embedders.forward import forward_passes, usable_cores
from harness.embedding.embedders.local import LocalEmbedder
from harness.validator.embedding.embed_batches import embed_in_equal_length_batches

BATCHES = [["does protein bind the receptor of the cell in the adult human brain",
            "does insulin bind the receptor of the cell in the adult human liver"],
           ["a short one"],
           ["Microglia are the brain's resident macrophages and respond to injury within minutes of its onset."] * 3]


@pytest.fixture
def model(local_embedder: LocalEmbedder) -> Any:
    return local_embedder._load()


@pytest.mark.real_model
def test_the_bytes_do_not_depend_on_how_many_passes_run_at_once(model: Any) -> None:
    one = [rows.tobytes() for rows in forward_passes(model, BATCHES, workers=1)]
    three = [rows.tobytes() for rows in forward_passes(model, BATCHES * 3, workers=3)]
    assert three == one * 3
    assert [len(rows) for rows in forward_passes(model, BATCHES, workers=2)] == [2, 1, 3]


@pytest.mark.real_model
def test_a_pass_gives_what_encode_gives_on_one_thread(model: Any) -> None:
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        expected = [model.encode(batch, batch_size=len(batch), convert_to_numpy=True, show_progress_bar=False)
                    for batch in BATCHES]
        alone = [model.encode([prompt], batch_size=1, convert_to_numpy=True, show_progress_bar=False)[0]
                 for batch in BATCHES for prompt in batch]
    finally:
        torch.set_num_threads(before)
    got = list(forward_passes(model, BATCHES))
    assert [rows.dtype for rows in got] == [np.dtype("float32")] * 3
    assert [rows.tobytes() for rows in got] == [rows.tobytes() for rows in expected]
    # the validator plans its own batches (equal lengths only): each vector is its prompt's alone
    fresh = embed_in_equal_length_batches(model, [prompt for batch in BATCHES for prompt in batch])
    assert np.asarray(fresh, dtype="<f4").tobytes() == np.vstack(alone).astype("<f4").tobytes()


@pytest.mark.real_model
def test_the_tokenizer_is_called_from_the_calling_thread_only(model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    callers: list[int] = []
    original = model.preprocess

    def recorded(prompts: list[str], *args: Any, **kwargs: Any) -> Any:
        callers.append(threading.get_ident())
        return original(prompts, *args, **kwargs)

    monkeypatch.setattr(model, "preprocess", recorded)
    list(forward_passes(model, BATCHES * 4, workers=2))
    embed_in_equal_length_batches(model, [prompt for batch in BATCHES * 4 for prompt in batch])
    assert callers and set(callers) == {threading.get_ident()}


@pytest.mark.real_model
def test_torch_gets_its_thread_count_back_when_the_passes_end_or_are_closed(model: Any) -> None:
    import torch

    before = torch.get_num_threads()
    passes = forward_passes(model, BATCHES, workers=2)
    next(passes)
    assert torch.get_num_threads() == 1
    passes.close()
    assert torch.get_num_threads() == before
    list(forward_passes(model, BATCHES))
    embed_in_equal_length_batches(model, ["one prompt to embed"])
    assert torch.get_num_threads() == before


def test_the_workers_are_the_cores_this_process_may_use() -> None:
    import os

    assert usable_cores() == len(os.sched_getaffinity(0)) >= 1
