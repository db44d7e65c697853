"""A long embedding in a log (stderr not a terminal) shows whole lines: when it starts, every period with the count,
rate and time left, and when it ends; the validator's re-embedding too. Minutes of silence in a CI log read as a
hang."""

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from harness.embedding import progress
from harness.embedding.embedders.base import EmbeddingRequest, RawEmbedding
from harness.embedding.run import embed_all
from harness.validator.embedding import embedders as validator_embedders


class Counting:
    """An embedder of fixed unit vectors, one text at a time."""

    backend, model = "test", "counting"

    def identity(self) -> dict[str, Any]:
        return {"backend": self.backend, "model": self.model}

    def endpoint(self) -> str | None:
        return None

    def truncation_policy(self) -> dict[str, Any]:
        return {}

    def embed(self, requests: list[EmbeddingRequest]) -> Iterator[RawEmbedding]:
        for _ in requests:
            yield RawEmbedding(np.ones(4) / 2.0)


def test_an_embedding_in_a_log_prints_lines_as_it_goes(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "PERIOD_SECONDS", 0.0)
    requests = [EmbeddingRequest(f"document:{i}", "passage: ", f"text {i}") for i in range(5)]
    embed_all(requests, Counting(), tmp_path / "cache", progress=True)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "embedding: 5 texts to embed", lines
    assert [line.split(" texts")[0] for line in lines[1:-1]] == [f"embedding: {n}/5" for n in range(1, 5)], lines
    assert lines[-1].startswith("embedding: 5/5 texts in ") and "texts/s" in lines[-1], lines
    assert all("\r" not in line for line in lines)


def test_no_progress_prints_nothing_and_nothing_to_embed_prints_nothing(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    requests = [EmbeddingRequest("document:0", "passage: ", "text")]
    embed_all(requests, Counting(), tmp_path / "cache", progress=False)
    embed_all(requests, Counting(), tmp_path / "cache", progress=True)  # cached: nothing missing
    assert capsys.readouterr().err == ""


def test_the_period_keeps_a_log_short() -> None:
    clock = iter([0.0, 10.0, 31.0, 40.0, 62.0, 70.0]).__next__
    stream = io.StringIO()
    lines = progress.LogLines(100, "embedding", stream, period=30.0, clock=clock)
    for _ in range(4):
        lines.update(10)
    lines.close()
    said = stream.getvalue().splitlines()
    assert [line.split(",")[0] for line in said] == [
        "embedding: 100 texts to embed", "embedding: 20/100 texts (20%)", "embedding: 40/100 texts (40%)",
        "embedding: 40/100 texts in 70 s (0.6 texts/s)"], said
    assert said[2].endswith("0.6 texts/s, about 93 s left"), said


def test_the_validators_re_embedding_in_a_log_prints_lines_as_it_goes(capsys: pytest.CaptureFixture[str],
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(validator_embedders, "PERIOD_SECONDS", 0.0)
    advance = validator_embedders.shown(600)
    assert advance is not None
    for _ in range(3):
        advance(200)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("validator: re-embedding 600 texts"), lines
    assert [line.split(" texts")[0] for line in lines[1:]] == [
        "validator: re-embedded 200/600", "validator: re-embedded 400/600", "validator: re-embedded 600"], lines
    assert "s left" in lines[1] and lines[-1].startswith("validator: re-embedded 600 texts in "), lines
