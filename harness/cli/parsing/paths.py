"""Command-line paths: checked for their kind before any work starts, and made absolute.

A path that is a file where a directory is needed (or the reverse), or that lies under a file, is refused
with the option, the path, what is wrong and what to do, instead of failing half-way through a build or
a run. Paths are made absolute here, so the places the run keeps in OUTPUT/locations.json resolve from any working
directory (the receipts themselves name files, never places).
"""

import argparse
import os
from pathlib import Path

from harness.errors import HarnessError


class PathArgumentError(HarnessError):
    """A path given on the command line is of the wrong kind."""


def _utf8(value: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise argparse.ArgumentTypeError(
            f"{value!a} is not valid UTF-8 (receipts record it as text); rename it, or choose a UTF-8 path"
        ) from None
    return value


def text_argument(value: str) -> str:
    return _utf8(value)


def path_argument(value: str) -> Path:
    if not value:
        raise argparse.ArgumentTypeError("an empty path; name a file or directory")
    return Path(os.path.abspath(_utf8(value)))


def _file_above(path: Path) -> Path | None:
    """The nearest ancestor of `path` that exists and is not a directory, if any."""
    for parent in path.parents:
        if parent.exists():
            return None if parent.is_dir() else parent
    return None


def _refuse_file_above(option: str, path: Path) -> None:
    above = _file_above(path)
    if above is not None:
        raise PathArgumentError(f"{option} {path}: {above} is a file, not a directory, so nothing can be created "
                                f"under it; choose a path in a directory")


def output_file(option: str, path: Path) -> None:
    """A file the command will write."""
    if path.is_dir():
        raise PathArgumentError(f"{option} {path} is a directory; name the file to write, e.g. "
                                f"{path / 'scifact-corpus.json'}")
    _refuse_file_above(option, path)


def directory(option: str, path: Path) -> None:
    """A directory the command uses, created if missing."""
    if path.exists() and not path.is_dir():
        raise PathArgumentError(f"{option} {path} is a file, not a directory; pass a directory (it is created if "
                                "missing)")
    _refuse_file_above(option, path)


def existing_directory(option: str, path: Path, fix: str = "pass the directory the evaluation wrote") -> None:
    if not path.is_dir():
        problem = "is a file, not a directory" if path.exists() else "does not exist"
        raise PathArgumentError(f"{option} {path} {problem}; {fix}")


def input_file(option: str, path: Path, fix: str) -> None:
    if not path.is_file():
        problem = "is a directory" if path.is_dir() else "does not exist"
        raise PathArgumentError(f"{option} {path} {problem}; {fix}")


def new_directory(option: str, path: Path) -> None:
    """A directory the command creates: it must not exist yet."""
    _refuse_file_above(option, path)


def writable_place(option: str, path: Path, *, is_directory: bool) -> None:
    """A file or directory to be written (replaced only with the command's own consent): not the other kind, and
    not under a file."""
    if path.exists() and path.is_dir() != is_directory:
        kind = "a directory" if path.is_dir() else "a file"
        raise PathArgumentError(f"{option} {path} is {kind}; name the {'directory' if is_directory else 'file'} to "
                                "write")
    _refuse_file_above(option, path)
