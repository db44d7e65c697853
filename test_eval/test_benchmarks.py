"""The benchmark suite, on the real SciFact data: `make bench` (= `pytest -m benchmark -p no:xdist`).

pytest-benchmark saves every run's JSON under `.benchmarks/` (compare two with `--benchmark-compare`).
Where a benchmark has a baseline in the same run it records how many times faster it is, and where it has
a target it records its median against it (fixtures/bench_ratios.py); the terminal lists those ratios with
the absolute figures. Serial only: pytest-benchmark switches itself off under xdist.

- embedding: today's path before batching (one prompt per forward pass) and equal-length batches, on the
  same prompts in one run (every prompt of every 16th token length, so batches are as full as in a whole
  build), and the two must give the same bytes;
- the store built from the fixture; per-query retrieval latency of each mode over the calibration queries;
- a warm calibration run of the three modes with the validator's verdicts (model loaded beforehand), and
  the validator alone on one aggregate and on three in one process.
"""

import itertools
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from fixtures import bench_ratios
from fixtures.systems import TextSearcher as Searcher
from harness.corpus.contract import scifact_contract
from harness.corpus.dataset import load_dataset
from harness.corpus.split import select
from harness.embedding.embedders.base import EmbeddingRequest
from harness.embedding.embedders.local import LocalEmbedder
from harness.embedding.profiles import text_profile
from harness.evaluation.run_split import Evaluation, run_split
from harness.fixture.build import embedding_requests
from harness.fixture.corpus_fixture import CorpusFixture
from harness.modes import SEARCHED as MODES
from harness.systems.builtin.config.search_config import LexicalConfig, SearchConfig
from harness.systems.builtin.store.store import Store, build_store
from harness.validator.core.report import Report
from harness.validator.dataset import check_dataset
from harness.validator.pipeline import validate

pytestmark = pytest.mark.benchmark
LENGTH_STRIDE = 16
_VECTORS: dict[str, list[bytes]] = {}


@pytest.fixture(scope="module")
def sample(scifact_archive: Path, local_embedder: LocalEmbedder) -> list[EmbeddingRequest]:
    """Every prompt whose token count (as the model cuts it) is a multiple of LENGTH_STRIDE."""
    contract = scifact_contract()
    profile = text_profile("scifact-contract", contract)
    requests = embedding_requests(load_dataset(scifact_archive, contract), profile)[2]
    limit = local_embedder._load().max_seq_length
    lengths = local_embedder._lengths([r.prompt for r in requests])
    return [r for r, n in zip(requests, lengths, strict=True) if min(n, limit) % LENGTH_STRIDE == 0]


def _one_at_a_time(embedder: LocalEmbedder, requests: list[EmbeddingRequest]) -> list[bytes]:
    """One prompt per forward pass (the embedder with SCIFACT_EMBED_MAX_BATCH=1): the same thread rule, one thread per
    pass and as many passes at once as there are cores, so that only the batching differs."""
    one = LocalEmbedder(embedder.model_dir.as_posix() if not embedder.source.packaged else embedder.model, max_batch=1)
    one._model = embedder._load()
    return _batched(one, requests)


def _batched(embedder: LocalEmbedder, requests: list[EmbeddingRequest]) -> list[bytes]:
    arranged = embedder.arrange(requests)
    found = {r.text_id: np.asarray(raw.values).tobytes() for r, raw in zip(arranged, embedder.embed(arranged),
                                                                           strict=True)}
    return [found[r.text_id] for r in requests]


def test_embedding_one_prompt_at_a_time(benchmark: BenchmarkFixture, sample: list[EmbeddingRequest],
                                        local_embedder: LocalEmbedder) -> None:
    _VECTORS["one"] = benchmark.pedantic(_one_at_a_time, args=(local_embedder, sample), rounds=3, iterations=1)  # type: ignore[no-untyped-call]
    bench_ratios.record(benchmark, per=len(sample), unit="text")


def test_embedding_sentence_transformers_encode(benchmark: BenchmarkFixture, sample: list[EmbeddingRequest],
                                                local_embedder: LocalEmbedder) -> None:
    """The library's own use, beside the two: `encode` of every prompt, batches of 32 sorted by length and padded,
    torch's default threads (the rate the embedder must at least match)."""
    model = local_embedder._load()
    prompts = [request.prompt for request in sample]
    benchmark.pedantic(lambda: model.encode(prompts, batch_size=32, show_progress_bar=False), rounds=3, iterations=1)  # type: ignore[no-untyped-call]
    bench_ratios.record(benchmark, per=len(sample), unit="text")


def test_embedding_equal_length_batches(benchmark: BenchmarkFixture, sample: list[EmbeddingRequest],
                                        local_embedder: LocalEmbedder) -> None:
    vectors = benchmark.pedantic(_batched, args=(local_embedder, sample), rounds=3, iterations=1)  # type: ignore[no-untyped-call]
    bench_ratios.record(benchmark, baseline="test_embedding_sentence_transformers_encode", per=len(sample), unit="text")
    if "one" in _VECTORS:
        same = sum(a == b for a, b in zip(_VECTORS["one"], vectors, strict=True))
        benchmark.extra_info["byte_identical"] = f"{same}/{len(sample)}"
        assert same == len(sample)


def test_store_build(benchmark: BenchmarkFixture, scifact_corpus: CorpusFixture, tmp_path: Path) -> None:
    rounds = itertools.count()

    def fresh() -> tuple[tuple[Path], dict[str, Any]]:
        return (tmp_path / f"store-{next(rounds)}",), {}

    benchmark.pedantic(lambda directory: build_store(directory, scifact_corpus, scifact_contract().namespace,  # type: ignore[no-untyped-call]
                                                     LexicalConfig()), setup=fresh, rounds=2, iterations=1)
    bench_ratios.record(benchmark)


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
    bench_ratios.record(benchmark, target_seconds=0.0003 if mode == "hybrid" else None)


@pytest.fixture(scope="module")
def warm_run(scifact_store: Store, scifact_corpus: CorpusFixture,
             tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    """A copy of the store (benchmark runs stay out of the real store's history) and one calibration run."""
    root = tmp_path_factory.mktemp("bench-run")
    shutil.copytree(scifact_store.directory, root / "store")
    runs = run_split(Evaluation(corpus=scifact_corpus.path, store_dir=root / "store", output_dir=root / "out",
                                split="calibration"), scifact_contract(), fixture=scifact_corpus)
    validate(runs[0].aggregate_path)  # the model loads here, once, before anything is timed
    return root, [run.aggregate_path for run in runs]


def test_calibration_run_warm(benchmark: BenchmarkFixture, warm_run: tuple[Path, list[Path]],
                              scifact_corpus: CorpusFixture) -> None:
    root, _ = warm_run

    def run_and_validate() -> list[str]:
        runs = run_split(Evaluation(corpus=scifact_corpus.path, store_dir=root / "store", output_dir=root / "out",
                                    split="calibration", replace=True), scifact_contract(), fixture=scifact_corpus)
        return [validate(run.aggregate_path).verdict() for run in runs]

    verdicts = benchmark.pedantic(run_and_validate, rounds=2, iterations=1)  # type: ignore[no-untyped-call]
    assert len(verdicts) == len(MODES)
    bench_ratios.record(benchmark, target_seconds=10.0)


def test_validator_one_aggregate(benchmark: BenchmarkFixture, warm_run: tuple[Path, list[Path]]) -> None:
    aggregate = warm_run[1][0]
    benchmark.pedantic(validate, args=(aggregate,), rounds=3, iterations=1)  # type: ignore[no-untyped-call]
    bench_ratios.record(benchmark, target_seconds=5.0)


def test_validator_three_aggregates(benchmark: BenchmarkFixture, warm_run: tuple[Path, list[Path]]) -> None:
    aggregates = warm_run[1]
    benchmark.pedantic(lambda: [validate(path) for path in aggregates], rounds=2, iterations=1)  # type: ignore[no-untyped-call]
    bench_ratios.record(benchmark, baseline="test_validator_one_aggregate", per=len(aggregates), unit="aggregate")


def test_validator_one_aggregate_pins_only(benchmark: BenchmarkFixture, warm_run: tuple[Path, list[Path]],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The baseline of the archive re-derivation: no embedding check, the fixture held to the pins only."""
    monkeypatch.delenv("SCIFACT_ARCHIVE", raising=False)
    report = benchmark.pedantic(validate, args=(warm_run[1][0],), kwargs={"embeddings": False},  # type: ignore[no-untyped-call]
                                rounds=5, iterations=1)
    assert "not re-derived" in report.notes["archive"]
    bench_ratios.record(benchmark)


def test_validator_one_aggregate_re_derived_from_the_archive(benchmark: BenchmarkFixture, scifact_archive: Path,
                                                             warm_run: tuple[Path, list[Path]]) -> None:
    """The same, with every document, query, judgement and semantic text re-derived from the archive (its
    per-process cache emptied before each round, so every round reads and parses the archive)."""
    def validate_re_deriving() -> Report:
        check_dataset._derived.cache_clear()
        return validate(warm_run[1][0], embeddings=False, archive=scifact_archive)
    report = benchmark.pedantic(validate_re_deriving, rounds=5, iterations=1)  # type: ignore[no-untyped-call]
    assert report.notes["archive"].startswith("re-derived from")
    bench_ratios.record(benchmark, baseline="test_validator_one_aggregate_pins_only", target_added_seconds=2.0)
