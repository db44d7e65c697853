"""The runner's warm-up and timed calls run with one BLAS thread, the receipt says so, and the limit ends with them:
BLAS's default pool splits a single query's matrix-vector product across every core, which on a busy machine makes
each call wait for all its threads (benchmarks/dense_speed.py measures it against faiss)."""

import json
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from numpy.typing import NDArray
from threadpoolctl import threadpool_info, threadpool_limits

from harness.corpus.contract import Contract
from harness.evaluation.measures.contention import REPEATS
from harness.evaluation.measures.threads import POLICY, one_blas_thread
from harness.evaluation.runner import run_mode
from harness.fixture.corpus_fixture import CorpusFixture
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.store.store import build_store
from harness.systems.builtin.system import BuiltinSystem
from harness.systems.protocol import SearchOutcome


def _blas_threads() -> list[int]:
    return [int(pool["num_threads"]) for pool in threadpool_info() if pool["user_api"] == "blas"]


class Watching(BuiltinSystem):
    """The built-in system, noting BLAS's thread counts at every search call."""

    seen: ClassVar[list[list[int]]] = []

    def search(self, mode: str, text: str, vector: NDArray[np.float32] | None, top_k: int) -> SearchOutcome:
        Watching.seen.append(_blas_threads())
        return super().search(mode, text, vector, top_k)


@pytest.fixture
def two_blas_threads() -> Any:
    """BLAS free to use two threads around the test (as numpy's default is on this 2-core machine)."""
    if not _blas_threads():
        pytest.skip("numpy loaded no BLAS thread pool here: nothing to limit")
    with threadpool_limits(limits=2, user_api="blas"):
        yield


def test_the_timed_calls_run_with_one_blas_thread(tiny_corpus: CorpusFixture, tiny: Contract, tmp_path: Path,
                                                  two_blas_threads: None) -> None:
    store, _ = build_store(tmp_path / "store", tiny_corpus, tiny.namespace, SearchConfig().lexical)
    Watching.seen = []
    run = run_mode(mode="vector_only", split="heldout", fixture=tiny_corpus, contract=tiny,
                   system=Watching(store, SearchConfig()), top_k=SearchConfig().top_k, output_dir=tmp_path / "out",
                   replace=False, argv=["test"])
    aggregate = json.loads(run.aggregate_path.read_bytes())
    rows = aggregate["row_count"]
    timed = Watching.seen  # the warm-up and the timed calls (the depth-100 ranking is cut from the timed call's lanes)
    assert len(timed) == rows + rows * REPEATS
    assert timed and all(threads == [1] * len(threads) for threads in timed), timed
    policy = aggregate["receipt"]["latency_measurement"]["thread_policy"]
    assert policy["note"] == POLICY
    recorded = [pool["threads"] for pool in policy["blas"] if pool["library"] in ("openblas", "mkl", "blis")]
    assert recorded and set(recorded) == {1}, policy
    assert _blas_threads() == [2] * len(_blas_threads())  # the limit ended with the timed calls


def test_the_limit_is_lifted_when_the_block_raises(two_blas_threads: None) -> None:
    with pytest.raises(RuntimeError), one_blas_thread() as pools:
        limited = [p["threads"] for p in pools if p["library"] in ("openblas", "mkl", "blis")]
        assert limited and set(limited) == {1}, pools
        raise RuntimeError("a search that failed")
    assert set(_blas_threads()) == {2}
