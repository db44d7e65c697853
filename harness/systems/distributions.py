"""The installed distributions as a system's process sees them, read once per process.

importlib.metadata answers each question by scanning every installed distribution's metadata and file list (about
0.1 s in a venv with torch), and a system's worker process asks several: which distributions provide a top-level
module, their versions, whether a loaded file is one a distribution installed. The answers are kept for the life of
the process, which is the life of a worker; a distribution installed while a process runs is not seen by it.
"""

import importlib.metadata
from functools import cache
from pathlib import Path


@cache
def _providers() -> dict[str, tuple[str, ...]]:
    return {top: tuple(names) for top, names in importlib.metadata.packages_distributions().items()}


def providers(top: str) -> tuple[str, ...]:
    """The names of the installed distributions that provide the top-level module `top` (stdlib's rule)."""
    return _providers().get(top, ())


@cache
def version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


@cache
def _listed(distribution: str) -> tuple[Path, frozenset[str]] | None:
    """Where the distribution's files are listed from (resolved) and the entries of its file list, as written."""
    try:
        found = importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None
    return Path(str(found.locate_file(""))).resolve(), frozenset(str(file) for file in found.files or [])


@cache
def _resolved_files(distribution: str) -> frozenset[Path]:
    try:
        files = importlib.metadata.distribution(distribution).files or []
    except importlib.metadata.PackageNotFoundError:
        return frozenset()
    return frozenset(Path(str(file.locate())).resolve() for file in files)


def installed_by(path: Path, distribution: str) -> bool:
    """Whether the resolved `path` is a file the distribution's file list names (RECORD, installed-files.txt).

    The entry written as the path's place below the distribution's base answers at once; only otherwise is every
    entry resolved (an entry reaching outside with '..', a link), which is what a whole resolved list would say."""
    listed = _listed(distribution)
    if listed is None:
        return False
    base, entries = listed
    if path.is_relative_to(base) and path.relative_to(base).as_posix() in entries:
        return True
    return path in _resolved_files(distribution)
