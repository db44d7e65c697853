"""The store directory's advisory lock, shared by the store builder and the run ledger."""

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..locks import file_lock

LOCK = ".store.lock"


@contextmanager
def store_lock(directory: Path, *, exclusive: bool) -> Iterator[None]:
    with file_lock(directory / LOCK, f"the store {directory}", exclusive=exclusive):
        yield
