"""Atomic, durable file replacement: a reader sees the old file or the whole new one, never a part."""

import contextlib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import BinaryIO


def fsync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def temporary_sibling(path: Path) -> Path:
    return path.with_name(f".{path.name}.tmp-{os.getpid()}")


@contextlib.contextmanager
def naming(path: Path) -> Iterator[None]:
    """An operating-system error without a file name (a full disk while writing or syncing a handle) re-raised naming
    `path`, the file that was being written, so its message says which file could not be written."""
    try:
        yield
    except OSError as exc:
        if exc.filename is not None or exc.errno is None:
            raise
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc


@contextlib.contextmanager
def atomic_writer(path: Path) -> Iterator[BinaryIO]:
    """Yield a binary handle; on clean exit the data is fsync'd and renamed over `path`.

    On any exception the temporary file is removed and `path` is left untouched.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temporary_sibling(path)
    try:
        with naming(path), tmp.open("wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
        fsync_directory(path.parent)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def write_bytes_atomic(path: Path, data: bytes) -> None:
    with atomic_writer(path) as handle:
        handle.write(data)


def write_all_atomic(files: Mapping[Path, bytes]) -> None:
    """Write every file to its temporary sibling first, then rename them all: a failure while writing (a full
    disk, a directory that cannot be written) leaves none of them changed, not some."""
    with contextlib.ExitStack() as stack:
        for path, data in files.items():
            stack.enter_context(atomic_writer(path)).write(data)


def create_all_atomic(files: Mapping[Path, bytes]) -> None:
    """Create every file, or none: each is written to its temporary sibling and synced first, then linked into place,
    which never replaces a file. When a path already exists (FileExistsError), or anything else fails, the files this
    call linked are removed again."""
    created: list[Path] = []
    with contextlib.ExitStack() as stack:
        temporaries = {}
        for path, data in files.items():
            temporaries[path] = tmp = temporary_sibling(path)
            stack.callback(tmp.unlink, missing_ok=True)
            with naming(path), tmp.open("wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        try:
            for path, tmp in temporaries.items():
                os.link(tmp, path)
                created.append(path)
        except BaseException:
            for path in created:
                path.unlink()
            raise
        for directory in {path.parent for path in created}:
            fsync_directory(directory)


def write_file(path: Path, data: bytes) -> None:
    """`path.write_bytes(data)`, an error without a file name (a full disk) naming `path`."""
    with naming(path):
        path.write_bytes(data)


def write_text_file(path: Path, text: str) -> None:
    """`path.write_text(text, encoding="utf-8")`, an error without a file name (a full disk) naming `path`."""
    with naming(path):
        path.write_text(text, encoding="utf-8")
