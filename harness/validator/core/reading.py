"""What one validation read, the key of its stored verdict: every file the validator opened for reading, every
directory it listed and every input whose presence it decided on.

The interpreter's audit events (PEP 578: `open`, `os.listdir`, `os.scandir`, `sqlite3.connect`) report every file
and directory the process touches, whichever library opens it; what the import system reads is left out (the
validator's own source and the installed distributions are the verdict's validator identity), and so are the
validator's own files and schemas. The checks note what no event shows: a presence decided by a stat
(`is_file`), files a native library reads (the model's directory). A result cached across validations in one
process (`recorded_cache`) carries the reads that made it to every validation that uses it.
"""

import functools
import os
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, ParamSpec, TypeVar
from urllib.parse import unquote, urlparse

Stat = tuple[int, int, int, int] | None  # (inode, size, mtime_ns, ctime_ns) when first read; None: absent
P = ParamSpec("P")
R = TypeVar("R")
VALIDATOR_DIR = Path(__file__).resolve().parents[1]
_WRITING = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
_EVENTS = frozenset({"open", "os.listdir", "os.scandir", "sqlite3.connect"})
_SKIPPED = ["/proc/", "/sys/", "/dev/", str(VALIDATOR_DIR) + os.sep, str(VALIDATOR_DIR.parent / "schemas") + os.sep]


def stat_of(path: str) -> Stat:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns


@dataclass
class Reading:
    """Paths by what was seen of them when first read; `broken` when an event could not be followed."""
    files: dict[str, Stat] = field(default_factory=dict)
    journals: set[str] = field(default_factory=set)  # a database's write-ahead log: its content, if any, counts
    listings: set[str] = field(default_factory=set)
    written: set[str] = field(default_factory=set)
    records: dict[str, int] = field(default_factory=dict)  # an append-only record: only its rows up to a position
    broken: str | None = None

    def merge(self, other: "Reading") -> None:
        for path, seen in other.files.items():
            self.files.setdefault(path, seen)
        for path, through in other.records.items():
            self.records[path] = max(through, self.records.get(path, 0))
        self.journals |= other.journals
        self.listings |= other.listings
        self.written |= other.written
        self.broken = self.broken or other.broken


_ACTIVE: list[Reading] = []
_LOCAL = threading.local()
_INSTALLED: list[bool] = []


def skip(prefix: Path) -> None:
    """Leave files under `prefix` out of every reading (the stored verdicts' own key and records)."""
    text = str(prefix)
    if text not in _SKIPPED:
        _SKIPPED.append(text)


def _skipped(path: str) -> bool:
    return any(path == prefix or path.startswith(prefix.rstrip(os.sep) + os.sep) for prefix in _SKIPPED) \
        or "__pycache__" in path.split(os.sep)


def _path(value: object) -> str | None:
    if value is None or isinstance(value, int):
        return None
    try:
        text = os.fsdecode(value)  # type: ignore[arg-type]
    except TypeError:
        return None
    return os.path.abspath(text)


def _database(value: object) -> str | None:
    text = _path(value) if not isinstance(value, str) or not value.startswith("file:") else None
    if isinstance(value, str) and value.startswith("file:"):
        text = os.path.abspath(unquote(urlparse(value).path))
    return None if text is None or text.endswith(":memory:") else text


def _importing() -> bool:
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False


def _file(path: str, writing: bool = False) -> None:
    if _skipped(path):
        return
    seen = None if writing else stat_of(path)
    for reading in _ACTIVE:
        if writing:
            reading.written.add(path)
        else:
            reading.files.setdefault(path, seen)


def _follow(event: str, args: tuple[object, ...]) -> None:
    if event == "open":
        path, mode, flags = _path(args[0]), args[1], args[2]
        if path is not None and not os.path.isdir(path):
            writing = any(c in mode for c in "wax+") if isinstance(mode, str) else \
                isinstance(flags, int) and bool(flags & _WRITING)
            _file(path, writing)
    elif event == "sqlite3.connect":
        database = _database(args[0])
        if database is not None:
            _file(database)
            for reading in _ACTIVE:  # a read-only connection may create an empty one: only its content counts
                reading.journals.add(database + "-wal")
    else:
        directory = _path(args[0] if args and args[0] is not None else ".")
        if directory is not None and not _skipped(directory):
            for reading in _ACTIVE:
                reading.listings.add(directory)


def _hook(event: str, args: tuple[object, ...]) -> None:
    if not _ACTIVE or event not in _EVENTS or getattr(_LOCAL, "busy", False):
        return
    _LOCAL.busy = True
    try:
        if not _importing():
            _follow(event, args)
    except Exception as exc:  # an event not followed: no verdict may be stored on this reading
        for reading in _ACTIVE:
            reading.broken = reading.broken or f"{event}: {type(exc).__name__}: {exc}"
    finally:
        _LOCAL.busy = False


@contextmanager
def recording() -> Iterator[Reading]:
    """Everything read inside the block (in this thread's process), in a new Reading."""
    if not _INSTALLED:
        sys.addaudithook(_hook)
        _INSTALLED.append(True)
    reading = Reading()
    _ACTIVE.append(reading)
    try:
        yield reading
    finally:
        _ACTIVE.remove(reading)


def note(path: Path) -> None:
    """`path` counts as read (a file a native library reads, or one whose absence decided a check)."""
    if _ACTIVE:
        _file(os.path.abspath(path))


def note_rows(path: Path, through: int) -> None:
    """The append-only held-out record at `path` was read for its rows up to position `through` only: the verdict
    depends on those rows, not on the file's bytes, which every later run changes."""
    for reading in _ACTIVE:
        key = os.path.abspath(path)
        reading.records[key] = max(through, reading.records.get(key, 0))


def is_file(path: Path) -> bool:
    """`path.is_file()`, and the path counts as read whatever the answer: a file that appears later changes the key."""
    note(path)
    return path.is_file()


def is_dir(path: Path) -> bool:
    """`path.is_dir()`, and the path counts as read whatever the answer."""
    note(path)
    return path.is_dir()


def note_tree(directory: Path) -> None:
    """Every file under `directory`, and its listing, count as read."""
    for path in sorted(directory.rglob("*")):
        if path.is_file():
            note(path)


class RecordedCache(Generic[P, R]):
    """functools.cache that gives every later caller the reads of the call that made the result."""

    def __init__(self, function: Callable[P, R], maxsize: int | None) -> None:
        self.function, self.maxsize = function, maxsize
        self.results: OrderedDict[object, tuple[R, Reading]] = OrderedDict()
        functools.update_wrapper(self, function)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        key = (args, tuple(sorted(kwargs.items())))
        if key not in self.results:
            with recording() as reading:
                value = self.function(*args, **kwargs)
            self.results[key] = (value, reading)
            if self.maxsize is not None and len(self.results) > self.maxsize:
                self.results.popitem(last=False)
        self.results.move_to_end(key)
        value, made = self.results[key]
        for active in _ACTIVE:
            active.merge(made)
        return value

    def cache_clear(self) -> None:
        self.results.clear()


def recorded_cache(maxsize: int | None = None) -> Callable[[Callable[P, R]], RecordedCache[P, R]]:
    def decorate(function: Callable[P, R]) -> RecordedCache[P, R]:
        return RecordedCache(function, maxsize)
    return decorate
