"""The store's chunked BM25 builder against bm25s indexing every document at once, and the dense lane's grouping
of identical vectors against the exact row comparison: the same files, the same groups."""

import filecmp
import json
from pathlib import Path

import numpy as np
import pytest

from fixtures.archives import TINY_DIR as TINY
from harness.systems.builtin.config.search_config import LexicalConfig
from harness.systems.builtin.index import dense
from harness.systems.builtin.index.lexical import LexicalIndex
from harness.systems.builtin.index.lexical_build import LexicalBuilder
from harness.systems.builtin.store.store import lexical_text


def _texts() -> list[str]:
    documents = [json.loads(line) for line in (TINY / "corpus.tiny.jsonl").read_text(encoding="utf-8").splitlines()]
    # Repeated words, a document of stopwords only, an empty one and a word seen first in the last chunk.
    return [lexical_text(d.get("title", ""), d["text"]) for d in documents] + [
        "aspirin aspirin aspirin platelets", "the of and", "", "zyxomycin"]


@pytest.mark.parametrize("chunk", [1, 3, 1000])
def test_the_chunked_builder_saves_the_bytes_bm25s_saves(tmp_path: Path, chunk: int) -> None:
    texts, config = _texts(), LexicalConfig()
    LexicalIndex.build(texts, config).save(tmp_path / "bm25s")
    builder = LexicalBuilder(config)
    for start in range(0, len(texts), chunk):
        builder.add(texts[start:start + chunk])
    builder.finish().save(tmp_path / "chunked")
    names = sorted(p.name for p in (tmp_path / "bm25s").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "chunked").iterdir())
    assert [n for n in names if not filecmp.cmp(tmp_path / "bm25s" / n, tmp_path / "chunked" / n, shallow=False)] == []


def test_the_chunked_index_scores_as_bm25s_does() -> None:
    texts, config = _texts(), LexicalConfig()
    builder = LexicalBuilder(config)
    builder.add(texts[:5])
    builder.add(texts[5:])
    ours, theirs = builder.finish(), LexicalIndex.build(texts, config)
    for query in ("aspirin platelets", "zyxomycin", "the of"):
        mine, reference = ours.score(query), theirs.score(query)
        assert mine.query_tokens == reference.query_tokens
        assert (mine.scores is None) == (reference.scores is None)
        if mine.scores is not None and reference.scores is not None:
            assert np.array_equal(mine.scores, reference.scores)


def test_only_the_lucene_weights_are_built_in_chunks() -> None:
    with pytest.raises(ValueError, match="lucene"):
        LexicalBuilder(LexicalConfig(method="robertson"))


def _exact_representatives(matrix: np.ndarray) -> np.ndarray:
    rows = matrix.view(np.dtype((np.void, matrix.dtype.itemsize * matrix.shape[1]))).ravel()
    _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    return np.asarray(first[inverse.ravel()])


def _with_duplicates() -> np.ndarray:
    matrix = np.random.default_rng(3).standard_normal((500, 8)).astype(np.float32)
    matrix[[40, 400, 499]] = matrix[7]
    matrix[300] = matrix[299]
    matrix[12] = -0.0  # bytes, not values: -0.0 and 0.0 are different vectors
    matrix[13] = 0.0
    return matrix


def test_identical_vectors_share_the_first_ones_row() -> None:
    matrix = _with_duplicates()
    found = dense._representatives(matrix)
    assert found is not None and np.array_equal(found, _exact_representatives(matrix))
    assert found[[40, 400, 499, 300, 12, 13]].tolist() == [7, 7, 7, 299, 12, 13]
    assert dense._representatives(np.eye(4, dtype=np.float32)) is None


def test_a_hash_collision_falls_back_to_comparing_whole_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every row hashed alike: the byte comparison refuses the grouping and the exact one decides."""
    monkeypatch.setattr(dense, "_row_hashes", lambda words: np.zeros(words.shape[0], dtype=np.uint64))
    matrix = _with_duplicates()
    found = dense._representatives(matrix)
    assert found is not None and np.array_equal(found, _exact_representatives(matrix))
