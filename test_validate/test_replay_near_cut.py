"""The replay's ranks counted near each lane's cut are the ranks counted over every candidate; the validator's
grouping of identical vectors and its BM25 postings hold what a direct computation gives."""

from collections import Counter

import numpy as np
import pytest

from harness.validator.retrieval import duplicates
from harness.validator.retrieval.bm25 import BM25, Tokenizer
from harness.validator.retrieval.ranking import Lane, fixed_groups, id_ranks
from harness.validator.retrieval.replay_rows import Ranked

RECORD = {"token_pattern": r"(?u)\b\w\w+\b", "lowercase": True, "stopwords": ["the", "of", "and"],
          "stemmer": {"library": "PyStemmer", "algorithm": "english"}}


def _lane(seed: int, tolerance: float) -> Lane:
    """Scores on a coarse grid (many exact ties, many within the tolerance), groups among equal scores only, and
    candidates a subset of the documents."""
    rng = np.random.default_rng(seed)
    n = 400
    scores = np.round(rng.random(n), 2)
    groups = np.where(rng.random(n) < 0.5, np.rint(scores * 100).astype(np.int64), np.arange(n) + 1000)
    ids = [f"d{rng.integers(10 ** 6)}-{i}" for i in range(n)]
    candidates = np.flatnonzero(rng.random(n) < 0.8)
    return Lane(ids, id_ranks(ids), scores, tolerance, fixed_groups(groups), candidates)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("tolerance", [0.0, 0.004, 0.05])
@pytest.mark.parametrize("depth", [1, 10, 100])
def test_ranks_near_the_cut_are_the_ranks_over_every_candidate(seed: int, tolerance: float, depth: int) -> None:
    lane = _lane(seed, tolerance)
    low, high = lane.admissible()
    ranked = Ranked.of(lane, depth)
    assert ranked.candidates == lane.candidates.size and ranked.size == min(depth, lane.candidates.size)
    assert ranked.head() == lane.order()[:ranked.size].tolist()
    for place, index in enumerate(lane.candidates.tolist()):
        assert ranked.admits(index)
        assert ranked.ranks(index) == (low[place], high[place])
        near = ranked.near_cut(index)
        assert near == (low[place], high[place]) if near is not None else low[place] > ranked.size
    for certainly, bound in ((True, high), (False, low)):
        assert ranked.within(ranked.size, certainly=certainly).tolist() == \
            lane.candidates[bound <= ranked.size].tolist()
    outside = np.setdiff1d(np.arange(len(lane.doc_ids)), lane.candidates)
    assert not any(ranked.admits(int(i)) for i in outside)
    assert ranked.expected_at(ranked.candidates + 1) == "nothing"


def test_a_lane_without_candidates_ranks_nothing() -> None:
    lane = _lane(0, 0.0)
    empty = Lane(lane.doc_ids, lane.id_ranks, lane.scores, 0.0, lane.groups, lane.candidates[:0])
    ranked = Ranked.of(empty, 10)
    assert ranked.size == 0 and ranked.head() == [] and not ranked.admits(0)


def _exact(matrix: np.ndarray) -> np.ndarray:
    rows = np.ascontiguousarray(matrix).view(np.dtype((np.void, 4 * matrix.shape[1]))).ravel()
    _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    return np.asarray(first[inverse.ravel()])


def _with_duplicates() -> np.ndarray:
    matrix = np.random.default_rng(5).standard_normal((300, 6)).astype(np.float32)
    matrix[[10, 200]] = matrix[3]
    matrix[20], matrix[21] = -0.0, 0.0
    return matrix


def test_identical_vectors_are_found_by_their_bytes() -> None:
    matrix = _with_duplicates()
    found = duplicates.first_identical(matrix)
    assert np.array_equal(found, _exact(matrix)) and found[[10, 200, 20, 21]].tolist() == [3, 3, 20, 21]


def test_a_hash_collision_is_caught_by_the_byte_comparison(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(duplicates, "_hashes", lambda words: np.zeros(words.shape[0], dtype=np.uint64))
    matrix = _with_duplicates()
    assert np.array_equal(duplicates.first_identical(matrix), _exact(matrix))


def test_postings_built_in_chunks_give_each_documents_term_frequencies(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("harness.validator.retrieval.bm25.CHUNK", 2)
    texts = ["cats and dogs", "dog dog cat", "the of", "", "birds cats cats", "fish dog"]
    tokenizer = Tokenizer.from_record(RECORD)
    bm25 = BM25(iter(texts), tokenizer, 1.5, 0.75)
    counts = [Counter(tokenizer.tokens(t)) for t in texts]
    assert bm25.count == len(texts) and bm25.lengths.tolist() == [sum(c.values()) for c in counts]
    terms, documents = ["cat", "dog", "fish"], np.array([5, 0, 1, 3, 4], dtype=np.intp)
    assert bm25.term_frequencies(terms, documents).tolist() == [[counts[d][t] for t in terms] for d in documents]
    whole = BM25(texts, tokenizer, 1.5, 0.75)
    for query in ("cat dog", "fish fish birds", "the"):
        mine, reference = bm25.score(query), whole.score(query)
        assert np.array_equal(mine.scores, reference.scores) and np.array_equal(mine.engine, reference.engine)
    assert bm25.score("dog cat dog").distinct == ["dog", "cat"]
