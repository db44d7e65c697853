"""Advisory file locks (flock) that say what they wait for.

A lock not granted at once is polled. After NOTICE_SECONDS one line on stderr names what is waited for
and the lock file; after the timeout (SCIFACT_LOCK_TIMEOUT seconds, default one hour, long enough for
another process to embed the whole corpus) the wait ends with LockTimeout. `try_lock` is the form that
refuses instead of waiting. flock locks die with their process, so a killed holder never blocks anyone.
"""

import fcntl
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from harness.errors import HarnessError, LockTimeout

NOTICE_SECONDS = 1.0
POLL_SECONDS = 0.05
DEFAULT_TIMEOUT_SECONDS = 3600.0
TIMEOUT_VARIABLE = "SCIFACT_LOCK_TIMEOUT"


def lock_timeout() -> float:
    value = os.environ.get(TIMEOUT_VARIABLE)
    if not value:
        return DEFAULT_TIMEOUT_SECONDS
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:
        raise HarnessError(f"{TIMEOUT_VARIABLE}={value!r} is not a number of seconds; set it to one (e.g. 600) "
                           "or unset it for the default of one hour")
    return seconds


def try_lock(handle: IO[bytes], *, exclusive: bool = True) -> bool:
    """Take the lock if it is free; never wait."""
    try:
        fcntl.flock(handle.fileno(), (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def acquire(handle: IO[bytes], path: Path, what: str, *, exclusive: bool = True,
            timeout: float | None = None) -> None:
    """Wait for the lock on `handle` (the open file `path`); `what` completes 'waiting for ...'."""
    limit = lock_timeout() if timeout is None else timeout
    started = time.monotonic()
    noticed = False
    while not try_lock(handle, exclusive=exclusive):
        waited = time.monotonic() - started
        if waited >= limit:
            raise LockTimeout(
                f"gave up after {waited:.0f} s waiting for {what}: another process holds the lock {path}. "
                f"Let it finish (or stop it), then rerun; {TIMEOUT_VARIABLE} sets how long to wait.")
        if not noticed and waited >= NOTICE_SECONDS:
            print(f"waiting for {what} (another process holds the lock {path}) ...", file=sys.stderr, flush=True)
            noticed = True
        time.sleep(POLL_SECONDS)
    if noticed:
        print(f"... got the lock {path} after {time.monotonic() - started:.1f} s", file=sys.stderr, flush=True)


@contextmanager
def file_lock(path: Path, what: str, *, exclusive: bool = True, timeout: float | None = None) -> Iterator[None]:
    """Hold the lock file `path` for the duration of the block (created, with its directory, if missing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab") as handle:
        acquire(handle, path, what, exclusive=exclusive, timeout=timeout)
        yield


STORE_LOCK = ".store.lock"


@contextmanager
def store_lock(directory: Path, *, exclusive: bool) -> Iterator[None]:
    """The store directory's advisory lock, shared by the system that builds the store and the run ledger kept in it."""
    with file_lock(directory / STORE_LOCK, f"the store {directory}", exclusive=exclusive):
        yield
