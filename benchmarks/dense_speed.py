"""`python -m benchmarks.dense_speed [--fixture FILE] [--dims D ...] [--busy N] [--rounds R]`: the built-in system's
vector_only search against faiss `IndexFlatIP` (exact inner product, one thread) on the same document and query
vectors, the same queries, under the same load, back to back, as the harness times it (one query at a time, top 10).

Four arms, interleaved round by round (each round begun by the next arm) so that load changes reach each alike,
each timed only once the process is idle (BLAS's worker threads spin on after the library-default arm, and their CPU
would count to the arm after it):
- `builtin, one BLAS thread`: the built-in system's `search` inside the limit the runner sets around its timed
  calls (`harness.evaluation.measures.threads.one_blas_thread`);
- `builtin lane: score + top k`: the dense lane's own work inside that call, the product over every stored vector
  and the top-k selection (`DenseIndex.score`, `ranking.top_k`), without the hits and outcome `search` returns;
- `builtin, library default`: the built-in `search` with BLAS free to choose its thread count (as before the limit);
- `faiss IndexFlatIP`: `faiss.IndexFlatIP` over the same document vectors, `omp_set_num_threads(1)`.

--dims names the vector widths to measure, one table each (default: the fixture's own). At the fixture's width its
own vectors are searched; at any other, seeded random unit vectors of that width (--seed) stand in for its
documents' and queries' (same counts, same texts: the dense lane reads only the vectors).

With --busy N (default 2), N processes spin on the CPU beside it for the whole measurement: a busy laptop. Prints
p50 and p95 wall per query, CPU per query (the whole process, all threads) and each arm's ratio to faiss. Needs
faiss-cpu (the `bench` extra: `.venv/bin/pip install -e ".[bench]"`); the fixture defaults to
work-dir/scifact-corpus.json, which `make calibration` builds.
"""

import argparse
import dataclasses
import importlib
import multiprocessing
import os
import tempfile
import time
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from harness.corpus.contract import scifact_contract
from harness.evaluation.measures.threads import one_blas_thread
from harness.fixture.corpus_fixture import CorpusFixture, load_fixture
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.index.ranking import top_k
from harness.systems.builtin.store.store import build_store
from harness.systems.builtin.system import BuiltinSystem

TOP_K = 10
REFERENCE = "faiss IndexFlatIP"
Search = Callable[[int], object]
Arms = dict[str, tuple[Search, bool]]  # name -> (search query i, inside the one-BLAS-thread limit)


def _spin() -> None:
    while True:
        pass


def unit_rows(rng: np.random.Generator, rows: int, dims: int) -> NDArray[np.float32]:
    block = rng.standard_normal((rows, dims))
    unit: NDArray[np.float32] = (block / np.linalg.norm(block, axis=1, keepdims=True)).astype(np.float32)
    return unit


def with_dimensions(fixture: CorpusFixture, dims: int, seed: int) -> tuple[CorpusFixture, str]:
    """The fixture itself when its vectors are `dims` wide, else its documents and queries with seeded random unit
    vectors of `dims` dimensions; and which of the two it is."""
    if fixture.document_vectors.shape[1] == dims:
        return fixture, "the fixture's vectors"
    rng = np.random.default_rng([seed, dims])
    data = {**fixture.data, "vectors": {**fixture.data["vectors"], "dimensions": dims}}
    documents = unit_rows(rng, len(fixture.document_vectors), dims)
    queries = unit_rows(rng, len(fixture.query_vectors), dims)
    replaced = dataclasses.replace(fixture, data=data, document_vectors=documents, query_vectors=queries)
    return replaced, f"seeded random unit vectors (seed {seed})"


def _faiss_search(documents: NDArray[np.float32], queries: NDArray[np.float32]) -> Search:
    faiss = importlib.import_module("faiss")  # an optional package, not one of the harness's
    faiss.omp_set_num_threads(1)
    index = faiss.IndexFlatIP(documents.shape[1])
    index.add(np.ascontiguousarray(documents))
    return lambda i: index.search(queries[i:i + 1], TOP_K)


def settle(most: float = 5.0) -> None:
    """Wait (up to `most` seconds) until this process is idle: BLAS's worker threads spin for a while after a call
    that used them, and that CPU time would be counted to whichever arm is measured next (about 1.5x faiss's)."""
    deadline = time.monotonic() + most
    while time.monotonic() < deadline:
        cpu = time.process_time()
        time.sleep(0.05)
        if time.process_time() - cpu < 0.001:
            return


def _timed(search: Search, count: int, limited: bool) -> tuple[list[float], float]:
    walls: list[float] = []
    context: Any = one_blas_thread() if limited else nullcontext()
    with context:
        cpu = time.process_time()
        for i in range(count):
            start = time.perf_counter()
            search(i)
            walls.append(time.perf_counter() - start)
        cpu = time.process_time() - cpu
    return walls, cpu


def _measure(arms: Arms, count: int, rounds: int, busy: int) -> tuple[dict[str, list[float]], dict[str, float]]:
    for search, limited in arms.values():
        _timed(search, min(20, count), limited)  # warm-up, untimed
    spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(busy)]
    for process in spinners:
        process.start()
    walls: dict[str, list[float]] = {name: [] for name in arms}
    cpus: dict[str, float] = dict.fromkeys(arms, 0.0)
    try:
        order = list(arms)
        for number in range(rounds):
            for name in order[number % len(order):] + order[:number % len(order)]:  # each arm first in turn
                search, limited = arms[name]
                settle()
                found, cpu = _timed(search, count, limited)
                walls[name] += found
                cpus[name] += cpu
    finally:
        for process in spinners:
            process.terminate()
            process.join()
    return walls, cpus


def measure_dimensions(fixture: CorpusFixture, args: argparse.Namespace, dims: int) -> None:
    fixture, vectors_are = with_dimensions(fixture, dims, args.seed)
    texts = [query["text"] for query in fixture.data["queries"]]
    vectors = np.ascontiguousarray(fixture.query_vectors, dtype=np.float32)
    with tempfile.TemporaryDirectory() as scratch:
        store, _ = build_store(Path(scratch) / "store", fixture, scifact_contract().namespace, SearchConfig().lexical)
        system = BuiltinSystem(store, SearchConfig())

        def builtin(i: int) -> object:
            return system.search("vector_only", texts[i], vectors[i], TOP_K)

        def lane(i: int) -> object:
            return top_k(store.dense.score(vectors[i]), store.ties, TOP_K)

        arms: Arms = {"builtin, one BLAS thread": (builtin, True), "builtin lane: score + top k": (lane, True),
                      "builtin, library default": (builtin, False),
                      REFERENCE: (_faiss_search(fixture.document_vectors, vectors), False)}
        before = os.getloadavg()[0]
        walls, cpus = _measure(arms, len(texts), args.rounds, args.busy)
    print(f"{dims} dimensions ({vectors_are}), {len(fixture.document_vectors)} documents, top {TOP_K}, "
          f"{len(texts) * args.rounds} calls per arm ({args.rounds} rounds), {args.busy} busy processes beside it, "
          f"{os.cpu_count()} cores, load average {before:.2f} before, {os.getloadavg()[0]:.2f} after")
    print(table(walls, cpus, len(texts) * args.rounds))


def table(walls: dict[str, list[float]], cpus: dict[str, float], calls: int) -> str:
    p50_ref = float(np.percentile(walls[REFERENCE], 50))
    cpu_ref = cpus[REFERENCE] / calls
    lines = [f"{'arm':<28} {'p50 ms':>8} {'p95 ms':>8} {'CPU ms/query':>13} {'p50 / faiss':>12} {'CPU / faiss':>12}"]
    for name, found in walls.items():
        p50, p95 = float(np.percentile(found, 50)), float(np.percentile(found, 95))
        cpu = cpus[name] / calls
        lines.append(f"{name:<28} {p50 * 1e3:>8.3f} {p95 * 1e3:>8.3f} {cpu * 1e3:>13.3f} {p50 / p50_ref:>12.2f} "
                     f"{cpu / cpu_ref:>12.2f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.dense_speed", description=__doc__.split("\n\n")[0])
    parser.add_argument("--fixture", type=Path, default=Path("work-dir/scifact-corpus.json"))
    parser.add_argument("--dims", type=int, nargs="+", default=None,
                        help="vector widths to measure (default: the fixture's); another width than the fixture's "
                             "is seeded random unit vectors")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random unit vectors (default 0)")
    parser.add_argument("--busy", type=int, default=2, help="processes spinning beside the measurement (default 2)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds over every query, arms interleaved")
    args = parser.parse_args(argv)
    if not args.fixture.is_file():
        parser.error(f"--fixture {args.fixture} does not exist; build it with `make calibration` or name one")
    if args.dims is not None and min(args.dims) < 1:
        parser.error(f"--dims {min(args.dims)}: a vector has at least one dimension")
    fixture = load_fixture(args.fixture)
    for number, dims in enumerate(args.dims or [fixture.document_vectors.shape[1]]):
        if number:
            print()
        measure_dimensions(fixture, args, dims)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
