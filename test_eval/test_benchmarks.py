"""Per-query retrieval latency with pytest-benchmark, over the calibration queries of the real store.

Run serially: `pytest -m benchmark -p no:xdist --archive=PATH` (pytest-benchmark switches itself off
under xdist). Each benchmark round is one retrieval call; the queries are cycled, so the reported
median is the per-query p50 of the retrieval call alone (the scope the receipts record).
"""

import itertools

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from fixtures.systems import TextSearcher as Searcher
from harness.corpus.contract import scifact_contract
from harness.evaluation.split import select
from harness.fixture.corpus_fixture import CorpusFixture
from harness.modes import MODES
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.store.store import Store


@pytest.mark.benchmark(group="retrieval", min_rounds=300, warmup=True)
@pytest.mark.parametrize("mode", MODES)
def test_retrieval_latency(benchmark: BenchmarkFixture, mode: str, scifact_store: Store,
                           scifact_corpus: CorpusFixture) -> None:
    queries = {q["query_id"]: q["text"] for q in scifact_corpus.data["queries"]}
    calibration = select(queries, "calibration", scifact_contract().calibration_count)
    texts = itertools.cycle([queries[qid] for qid in calibration])
    searcher = Searcher(scifact_store, scifact_corpus, SearchConfig())
    outcome = benchmark(lambda: searcher.search(mode, next(texts)))
    assert len(outcome.hits) == 10
