"""The timed calls run with one BLAS thread.

A single query's dense search is one matrix-vector product: BLAS's default thread pool splits it across every core,
which costs more CPU than it saves and, on a machine with other work, makes each call wait for every one of its
threads (tens of milliseconds instead of a fraction of one). The runner therefore limits BLAS to one thread around
its warm-up and timed calls (threadpoolctl), and the receipt records the thread pools as they were inside the limit.
A system searching in a worker process of its own chooses its own threads there.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from threadpoolctl import threadpool_info, threadpool_limits

POLICY = "one BLAS thread during the warm-up and timed calls (threadpoolctl); other pools at their library defaults"


def pools() -> list[dict[str, Any]]:
    """The loaded thread pools as the receipt records them."""
    return [{"library": pool.get("internal_api"), "threads": pool.get("num_threads"), "version": pool.get("version")}
            for pool in threadpool_info()]


@contextmanager
def one_blas_thread() -> Iterator[list[dict[str, Any]]]:
    """BLAS limited to one thread inside; yields the pools as they are inside the limit."""
    with threadpool_limits(limits=1, user_api="blas"):
        yield pools()
