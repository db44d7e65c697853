"""The store directory's advisory lock, shared by the store builder and the run ledger."""

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK = ".store.lock"


@contextmanager
def store_lock(directory: Path, *, exclusive: bool) -> Iterator[None]:
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / LOCK).open("ab") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield
