"""Equal-length batching gives the very bytes of batch size 1, in the harness and in the validator.

The prompts are the tiny corpus's own (built as the fixture builder builds them) plus prompts made to share
a token count (short queries differing in one word piece, and over-long prompts the model cuts to its
limit), so the batches really hold several prompts: a test that only ever saw batches of one could not fail.
The real SciFact figures (all 5,483 prompts) come from scripts/embedding_batching.py.
"""

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fixtures.archives import tiny_archive, tiny_contract
from fixtures.cli import assert_clean_failure, run_tiny_cli
from harness.corpus.dataset import load_dataset
from harness.embedding.embedders.base import EmbeddingRequest
from harness.embedding.embedders.batching import DEFAULT_MAX_BATCH, MAX_BATCH_TOKENS, MIN_BATCHED_LENGTH, batches, order
from harness.embedding.embedders.local import LocalEmbedder, max_batch_setting
from harness.embedding.profiles import text_profile
from harness.embedding.run import embed_all
from harness.embedding.vectors import check_and_normalize
from harness.fixture.build import embedding_requests
from harness.validator.embedding.embed_batches import embed_in_equal_length_batches

Batched = tuple[list[EmbeddingRequest], list[Any]]  # requests in the batching order, their raw vectors
WORDS = ("protein", "cell", "gene", "virus", "tissue", "blood", "brain", "liver")


def test_order_puts_equal_lengths_together_and_keeps_ties_in_place() -> None:
    assert order([5, 3, 5, 3, 9]) == [1, 3, 0, 2, 4]
    assert order([]) == []


def test_batches_are_runs_of_equal_length_capped_at_max_batch() -> None:
    assert batches([30, 30, 30, 50, 50, 30], max_batch=2) == [[0, 1], [2], [3, 4], [5]]
    assert batches([70] * 5, max_batch=32) == [[0, 1, 2, 3, 4]]


def test_a_batch_holds_at_most_max_batch_tokens_word_pieces() -> None:
    """Long prompts go fewer to a batch: 2,048 word pieces in all (8 of 256), however large max_batch is."""
    assert [len(b) for b in batches([256] * 20, max_batch=32)] == [8, 8, 4]
    assert [len(b) for b in batches([64] * 40, max_batch=64)] == [32, 8]
    assert MAX_BATCH_TOKENS == 2048


def test_short_prompts_are_never_batched() -> None:
    """Batches of 7 to 11 word pieces gave other bytes than one prompt at a time (see batching.py)."""
    short = MIN_BATCHED_LENGTH - 1
    assert batches([short] * 3 + [MIN_BATCHED_LENGTH] * 2, max_batch=32) == [[0], [1], [2], [3, 4]]
    assert batches([], max_batch=4) == []
    with pytest.raises(ValueError, match="at least 1"):
        batches([1], max_batch=0)


@pytest.fixture(scope="module")
def requests(tmp_path_factory: pytest.TempPathFactory) -> list[EmbeddingRequest]:
    contract = tiny_contract()
    dataset = load_dataset(tiny_archive(tmp_path_factory.mktemp("batching") / "tiny.zip"), contract)
    tiny = embedding_requests(dataset, text_profile("scifact-contract", contract))[2]
    short = [EmbeddingRequest(f"query:made-{word}", "search_query: ", f"does {word} bind the receptor")
             for word in WORDS]  # 10 word pieces: embedded alone (batched, they would change bytes)
    medium = [EmbeddingRequest(f"query:made-{word}-2", "search_query: ",
                               f"does {word} bind the receptor of the cell in the adult human brain")
              for word in WORDS]  # 19 word pieces: one batch
    long_text = " ".join(request.semantic_text for request in tiny[:10])
    long = [EmbeddingRequest(f"document:long-{n}", "search_document: ", long_text * 2 + f" tail {n} " * n)
            for n in range(1, 5)]
    return tiny + short + medium + long


@pytest.fixture(scope="module")
def alone(requests: list[EmbeddingRequest], local_embedder: LocalEmbedder) -> dict[str, np.ndarray]:
    """Each prompt's vector from sentence-transformers' `encode` of it alone (batch size 1) on one thread, made once for
    the module's tests."""
    import torch

    model = local_embedder._load()
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return {r.prompt: np.asarray(model.encode([r.prompt], batch_size=1, convert_to_numpy=True,
                                                  show_progress_bar=False)[0]) for r in requests}
    finally:
        torch.set_num_threads(before)


@pytest.fixture(scope="module")
def batched(requests: list[EmbeddingRequest], local_embedder: LocalEmbedder) -> Batched:
    """The harness's embedder on the requests in its batching order: (the order, its raw vectors), made once."""
    arranged = local_embedder.arrange(requests)
    return arranged, list(local_embedder.embed(arranged))


@pytest.mark.real_model
def test_equal_length_batches_are_byte_identical_to_batch_size_one(
        batched: Batched, alone: dict[str, np.ndarray],
        local_embedder: LocalEmbedder) -> None:
    model = local_embedder._load()
    arranged, raws = batched
    lengths = [min(n, model.max_seq_length) for n in local_embedder._lengths([r.prompt for r in arranged])]
    plan = batches(lengths, local_embedder.max_batch)
    assert max(map(len, plan)) >= len(WORDS)  # the made queries share one batch
    assert any(len(b) >= 4 and lengths[b[0]] == model.max_seq_length for b in plan)  # so do the cut prompts
    assert len(raws) == len(arranged)
    for request, raw in zip(arranged, raws, strict=True):
        single = alone[request.prompt]
        assert np.asarray(raw.values).astype("<f4").tobytes() == single.astype("<f4").tobytes(), request.text_id
        cut = len(model.tokenizer(request.prompt)["input_ids"]) > model.max_seq_length
        assert raw.model_truncated is cut, request.text_id
    assert sum(bool(raw.model_truncated) for raw in raws) == 4


@pytest.mark.real_model
def test_the_validator_batches_to_the_same_bytes(requests: list[EmbeddingRequest],
                                                  batched: Batched,
                                                  local_embedder: LocalEmbedder) -> None:
    model = local_embedder._load()
    prompts = [r.prompt for r in requests]
    fresh = embed_in_equal_length_batches(model, prompts)
    harness = {r.prompt: np.asarray(raw.values) for r, raw in zip(*batched, strict=True)}
    for prompt, vector in zip(prompts, fresh, strict=True):
        assert np.asarray(vector, dtype="<f4").tobytes() == harness[prompt].astype("<f4").tobytes(), prompt[:40]


@pytest.mark.real_model
def test_the_cache_holds_each_prompt_under_its_own_vector(tmp_path: Path, requests: list[EmbeddingRequest],
                                                          alone: dict[str, np.ndarray],
                                                          local_embedder: LocalEmbedder) -> None:
    """embed_all embeds in the batching order but returns (and caches) every vector under its own prompt."""
    result = embed_all(requests, local_embedder, tmp_path / "cache", progress=False)
    expected = np.vstack([check_and_normalize(r.text_id, alone[r.prompt], None) for r in requests])
    assert result.vectors.tobytes() == expected.tobytes()
    again = embed_all(list(reversed(requests)), local_embedder, tmp_path / "cache", progress=False)
    assert again.embedded == 0 and again.vectors.tobytes() == expected[::-1].tobytes()
    assert local_embedder.identity()["batch_size"] == 1  # the same vectors: the same identity, the same cache


@pytest.mark.parametrize("value", ["0", "-3", "many", "2.5", ""])
def test_a_bad_batch_setting_is_one_line_and_nothing_is_written(value: str, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SCIFACT_EMBED_MAX_BATCH", value)
    outcome = run_tiny_cli(["build", "--out", str(tmp_path / "out" / "tiny.json"), "--work-dir",
                            str(tmp_path / "work"), "--archive", str(tiny_archive(tmp_path / "tiny.zip"))], capsys)
    assert_clean_failure(outcome.code, outcome.err, 2)
    assert "SCIFACT_EMBED_MAX_BATCH" in outcome.err
    assert not (tmp_path / "out").exists() and not (tmp_path / "work").exists()


def test_the_batch_setting_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCIFACT_EMBED_MAX_BATCH", "1")
    assert max_batch_setting() == 1
    monkeypatch.delenv("SCIFACT_EMBED_MAX_BATCH")
    assert max_batch_setting() == DEFAULT_MAX_BATCH
