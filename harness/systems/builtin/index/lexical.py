"""The BM25 lane: bm25s with Lucene scoring over the tokenizer of tokenizer.py."""

import json
import logging
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bm25s
import numpy as np
from numpy.typing import NDArray

from harness.atomic import fsync_directory, write_text_file
from harness.systems.builtin.config.search_config import LexicalConfig
from harness.systems.builtin.index.tokenizer import Tokenizer

TOKENIZER_RECORD = "tokenizer.json"
logging.getLogger("bm25s").setLevel(logging.WARNING)


@dataclass(frozen=True)
class LexicalScores:
    query_tokens: list[str]  # the query's tokens that the index knows
    scores: NDArray[np.float32] | None  # None when the query has no indexable term


class LexicalIndex:
    def __init__(self, bm25: Any, tokenizer: Tokenizer) -> None:
        self._bm25 = bm25
        self.tokenizer = tokenizer

    @classmethod
    def build(cls, texts: list[str], config: LexicalConfig) -> "LexicalIndex":
        tokenizer = Tokenizer(config)
        documents = [tokenizer.tokens(text) for text in texts]
        # A sorted vocabulary: bm25s would number tokens in set order, which changes with the hash
        # seed of each process, and the saved index would differ from build to build.
        vocabulary = {token: i for i, token in enumerate(sorted({t for tokens in documents for t in tokens}))}
        bm25 = bm25s.BM25(k1=config.k1, b=config.b, method=config.method)
        bm25.index(([[vocabulary[t] for t in tokens] for tokens in documents], vocabulary), show_progress=False)
        return cls(bm25, tokenizer)

    def save(self, directory: Path) -> None:
        """Write into a temporary sibling, then rename: a reader never sees half an index."""
        staging = directory.with_name(directory.name + ".tmp")
        shutil.rmtree(staging, ignore_errors=True)
        self._bm25.save(str(staging), show_progress=False)
        write_text_file(staging / TOKENIZER_RECORD, json.dumps(self.tokenizer.record(), indent=1))
        if directory.exists():
            shutil.rmtree(directory)
        staging.rename(directory)
        fsync_directory(directory.parent)

    @classmethod
    def load(cls, directory: Path, config: LexicalConfig) -> "LexicalIndex":
        tokenizer = Tokenizer(config)
        tokenizer.check_matches(json.loads((directory / TOKENIZER_RECORD).read_text(encoding="utf-8")))
        return cls(bm25s.BM25.load(str(directory), show_progress=False), tokenizer)

    @property
    def document_count(self) -> int:
        return int(self._bm25.scores["num_docs"])

    def score(self, query: str) -> LexicalScores:
        known = [token for token in self.tokenizer.tokens(query) if token in self._bm25.vocab_dict]
        if not known:
            return LexicalScores([], None)
        ids = [self._bm25.vocab_dict[token] for token in known]
        return LexicalScores(known, self._bm25.get_scores_from_ids(ids))
