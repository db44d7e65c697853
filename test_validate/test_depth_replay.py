"""Rankings to depth 100 on a corpus deeper than the top 10 (400 synthetic documents): the built-in system's depth-100
list begins with its top 10 in every mode, at the default candidate depth and a shallower one, and the validator's
replay recomputes every depth-100 ranking, refusing a dropped, moved or rescored document by mode, query and rank."""

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks.scale.synthetic import NAMESPACE, SyntheticCorpus, generate
from harness.modes import SEARCHED as MODES
from harness.modes import mode as declared_mode
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.system import BuiltinBuilder, BuiltinSystem
from harness.validator.core.context import Context
from harness.validator.core.report import Report
from harness.validator.replay.check_replay import check_replay
from harness.validator.retrieval.bm25 import BM25, Tokenizer
from harness.validator.retrieval.lanes import Replay
from harness.validator.retrieval.live_store import load_live_store
from harness.validator.retrieval.ranking import id_ranks

TOP_K, DEPTH = 10, 100
CANDIDATE_DEPTHS = (100, 20)


@pytest.fixture(scope="module")
def corpus() -> SyntheticCorpus:
    return generate(400, seed=3, queries=6)


@pytest.fixture(scope="module")
def store(corpus: SyntheticCorpus, tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("depth-store")
    BuiltinBuilder(NAMESPACE, SearchConfig()).build(corpus.fixture(directory / "synthetic.json"), directory)
    return directory


def _system(corpus: SyntheticCorpus, store: Path, candidate_depth: int) -> BuiltinSystem:
    config = SearchConfig(hybrid_candidate_depth=candidate_depth)
    return BuiltinBuilder(NAMESPACE, config).open(corpus.fixture(store / "synthetic.json"), store)


def _rows(system: BuiltinSystem, corpus: SyntheticCorpus, mode: str) -> list[dict[str, Any]]:
    """Rows as the runner writes them for the replay: the top-10 results and search receipt, and the depth-100
    ranking searched separately."""
    rows = []
    for query_id, text, vector in zip(corpus.query_ids, corpus.query_texts, corpus.query_vectors, strict=True):
        given = vector if declared_mode(mode).dense else None
        top, deep = system.search(mode, text, given, TOP_K), system.search(mode, text, given, DEPTH)
        rows.append(json.loads(json.dumps({
            "query_id": query_id, "error": None, "search_receipt": system.search_receipt(top, text, query_id),
            "results": [{"doc_id": h.doc_id, "score": h.score, "lanes": h.lanes} for h in top.hits],
            "ranked_doc_ids": [h.doc_id for h in top.hits],
            "depth_ranking": {"depth": DEPTH, "doc_ids": [h.doc_id for h in deep.hits],
                              "scores": [h.score for h in deep.hits], "error": None}})))
    return rows


def _replay(corpus: SyntheticCorpus, store: Path) -> Replay:
    manifest = json.loads((store / "store.json").read_text(encoding="utf-8"))
    mapping = json.loads((store / "mapping.json").read_text(encoding="utf-8"))
    live = load_live_store(store, manifest, mapping["doc_to_fact"], corpus.vectors.shape[1])
    by_fact = sorted(live.doc_to_fact, key=live.doc_to_fact.__getitem__)
    text = {d: f"{t.strip()} {x.strip()}" for d, t, x in zip(corpus.doc_ids, corpus.titles, corpus.texts, strict=True)}
    bm25 = BM25([text[d] for d in by_fact], Tokenizer.from_record(live.tokenizer), 1.5, 0.75)
    return Replay(by_fact, id_ranks(by_fact), live.vectors, bm25)


def _depth_check(corpus: SyntheticCorpus, store: Path, mode: str, rows: list[dict[str, Any]],
                 candidate_depth: int) -> Any:
    config = {"lexical": {"k1": 1.5, "b": 0.75}, "hybrid_candidate_depth": candidate_depth, "rrf_k": 60}
    aggregate = {"mode": mode, "split": "all", "receipt": {"system": {"name": "builtin"},
                                                           "retrieval": {"top_k": TOP_K, "config": config}}}
    report = Report(f"synthetic {mode}")
    check_replay(Context(store, aggregate, store, rows, None, None, None, None), report, _replay(corpus, store),
                 dict(zip(corpus.query_ids, corpus.query_vectors, strict=True)),
                 dict(zip(corpus.query_ids, corpus.query_texts, strict=True)))
    assert all(check.status == "pass" for check in report.checks if check.name != "replay.depth"), report.checks
    [check] = [check for check in report.checks if check.name == "replay.depth"]
    return check


@pytest.mark.parametrize("candidate_depth", CANDIDATE_DEPTHS)
@pytest.mark.parametrize("mode", MODES)
def test_the_depth_100_list_begins_with_the_top_10_and_the_replay_agrees(
        corpus: SyntheticCorpus, store: Path, mode: str, candidate_depth: int) -> None:
    rows = _rows(_system(corpus, store, candidate_depth), corpus, mode)
    for row in rows:
        depth = row["depth_ranking"]
        assert depth["doc_ids"][:TOP_K] == row["ranked_doc_ids"], (mode, row["query_id"])
        assert depth["scores"][:TOP_K] == [r["score"] for r in row["results"]]
        if mode == "vector_only":
            assert len(depth["doc_ids"]) == DEPTH  # every document is a dense candidate
        if mode == "hybrid":  # the fusion of two lanes at the candidate depth, whatever top_k asks
            assert TOP_K < len(depth["doc_ids"]) <= min(DEPTH, 2 * candidate_depth)
    assert any(len(row["depth_ranking"]["doc_ids"]) > TOP_K for row in rows)
    check = _depth_check(corpus, store, mode, rows, candidate_depth)
    assert check.status == "pass", check


def _deep_row(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return max(rows, key=lambda row: len(row["depth_ranking"]["doc_ids"]))


def _dropped(row: dict[str, Any]) -> int:
    """The document at depth rank 15 dropped: the list is one short and every later one moves up."""
    depth = row["depth_ranking"]
    del depth["doc_ids"][14], depth["scores"][14]
    return 15


def _distinct_after(scores: list[float], start: int) -> int:
    """The first position from `start` whose score is strictly below the one above and above the one below (RRF
    scores tie often)."""
    return next(i for i in range(start, len(scores) - 1) if scores[i - 1] > scores[i] > scores[i + 1])


def _rescored(row: dict[str, Any]) -> int:
    """A score from depth rank 30 on raised halfway to the one above: still in order, but not the document's."""
    scores = row["depth_ranking"]["scores"]
    at = _distinct_after(scores, 29)
    scores[at] = (scores[at] + scores[at - 1]) / 2
    return at + 1


def _swapped(row: dict[str, Any]) -> int:
    """Two documents from depth rank 40 on trade places, their (distinct) scores kept where they were."""
    ids, scores = row["depth_ranking"]["doc_ids"], row["depth_ranking"]["scores"]
    at = _distinct_after(scores, 39)
    ids[at], ids[at + 1] = ids[at + 1], ids[at]
    return at + 1


@pytest.mark.parametrize("forge", [_dropped, _rescored, _swapped])
@pytest.mark.parametrize("mode", MODES)
def test_a_forged_depth_ranking_is_refused_by_mode_query_and_rank(
        corpus: SyntheticCorpus, store: Path, mode: str, forge: Any) -> None:
    rows = _rows(_system(corpus, store, 100), corpus, mode)
    row = _deep_row(rows)
    assert len(row["depth_ranking"]["doc_ids"]) > 50, (mode, row["depth_ranking"])
    rank = forge(row)
    check = _depth_check(corpus, store, mode, rows, 100)
    assert check.status == "fail", check
    assert f"mode {mode}, query {row['query_id']}" in str(check.found), check.found
    assert f"rank {rank}" in str(check.found) or f"rank {rank + 1}" in str(check.found), (rank, check.found)
