"""A download's partial file: hidden, named by the process, locked for as long as its download lives.

`remove_stale_partials` removes only partials whose lock it can take, so a second download in the same
directory never deletes a first one's live file; a killed download's lock died with it, so its leftover
is removed by the next download.
"""

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from harness.locks import try_lock


def partial_name(dest: Path) -> Path:
    return dest.with_name(f".{dest.name}.part-{os.getpid()}")


def remove_stale_partials(dest: Path) -> list[Path]:
    """Remove the partial files of downloads that are no longer running; return them."""
    removed = []
    for path in sorted(dest.parent.glob(f".{dest.name}.part-*")):
        try:
            handle = path.open("rb")
        except FileNotFoundError:
            continue
        with handle:
            if try_lock(handle):  # a live download holds its partial's lock
                path.unlink(missing_ok=True)
                removed.append(path)
    return removed


@contextlib.contextmanager
def claimed_partial(dest: Path) -> Iterator[tuple[Path, BinaryIO]]:
    """Create this process's partial for `dest`, locked; it is removed when the block ends, unless renamed."""
    path = partial_name(dest)
    while True:
        handle = path.open("wb")
        try:
            linked = try_lock(handle) and os.stat(path).st_ino == os.fstat(handle.fileno()).st_ino
        except FileNotFoundError:
            linked = False
        if linked:
            break
        handle.close()  # another process's clean-up took it between open and lock: claim a new one
        time.sleep(0.01)
    try:
        with handle:
            yield path, handle
    finally:
        path.unlink(missing_ok=True)
