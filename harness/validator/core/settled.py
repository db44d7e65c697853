"""A file's sha256, hashed once per process while the file stands still.

A stored verdict is keyed by the sha256 of every file its validation read, taken after the validation and again at
each lookup, and the packaged model alone is about 90 MB. A file whose stat (inode, size, modification and change
times) is still the one it was hashed at, and whose last change is older than the coarsest grain of a filesystem's
times, holds the bytes it held: a write sets the change time to the present, and no call sets it back. A file
changed within that grain could be rewritten at the same size without its stat showing it (git's 'racily clean'
entries): it is hashed every time.
"""

import os
import time
from pathlib import Path

from .digests import sha256_file
from .reading import Stat, note, stat_of

SETTLED_NS = 3_000_000_000  # FAT's times are two seconds apart; others' a clock tick or a nanosecond
_KNOWN: dict[str, tuple[Stat, str]] = {}


def settled(seen: Stat) -> bool:
    """A file with this stat was last changed long enough ago that any later change shows in its stat."""
    return seen is not None and seen[3] < time.time_ns() - SETTLED_NS


def settled_digest(path: Path) -> str:
    """The file's sha256: the one taken earlier in this process when its stat is the same and settled, else hashed
    now (OSError when it cannot be read). Either way the file counts as read by the validation under way."""
    key = os.path.abspath(path)
    note(Path(key))
    seen = stat_of(key)
    known = _KNOWN.get(key)
    if known is not None and known[0] == seen and settled(seen):
        return known[1]
    digest = sha256_file(Path(key))
    if settled(seen) and stat_of(key) == seen:
        _KNOWN[key] = (seen, digest)
    return digest
