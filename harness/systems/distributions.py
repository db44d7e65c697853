"""The installed distributions as a system's process sees them, read once per process.

importlib.metadata answers each question by scanning every installed distribution's metadata and file list (about
0.1 s in a venv with torch), and a system's worker process asks several: which distributions provide a top-level
module, their versions, whether a loaded file is one a distribution installed. Here each is answered by stdlib's
rule from what it needs to read, and kept for the life of the process, which is the life of a worker; a distribution
installed while a process runs is not seen by it.
"""

import csv
import importlib.metadata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePosixPath

from harness import record_files

# stdlib's own two halves of packages_distributions' rule, so the answer is its answer
_DECLARED: Callable[[importlib.metadata.Distribution], list[str]] | None = getattr(
    importlib.metadata, "_top_level_declared", None)
_INFERRED: Callable[[importlib.metadata.Distribution], Iterable[str]] | None = getattr(
    importlib.metadata, "_top_level_inferred", None)


@dataclass(frozen=True)
class _Installed:
    distribution: importlib.metadata.Distribution
    declared: tuple[str, ...]  # the modules its top_level.txt declares
    heads: frozenset[str] | None  # every name stdlib could infer a module from its RECORD by; None: no RECORD
    record: str  # its RECORD as written ("" without one)


def _heads(record: str) -> frozenset[str]:
    """Each RECORD entry's first path component, and that component up to its first dot: every top-level module
    stdlib infers from the entries is among them (a package's directory, or a lone module's file name)."""
    found: set[str] = set()
    for line in record.splitlines():
        path = next(csv.reader([line]), [""])[0] if line.startswith('"') else line.split(",", 1)[0]
        parts = PurePosixPath(path).parts if path.startswith((".", "/")) else (path.split("/", 1)[0],)
        if parts:
            found |= {parts[0], parts[0].split(".", 1)[0]}
    return frozenset(found)


@cache
def _installed() -> tuple[_Installed, ...]:
    assert _DECLARED is not None
    listed: list[_Installed] = []
    for found in importlib.metadata.distributions():
        declared, record = tuple(_DECLARED(found)), found.read_text("RECORD")
        listed.append(_Installed(found, declared, None if declared or not record else _heads(record), record or ""))
    return tuple(listed)


@cache
def _inferred(index: int) -> frozenset[str]:
    assert _INFERRED is not None
    return frozenset(_INFERRED(_installed()[index].distribution))


@cache
def _name(index: int) -> str:
    return str(_installed()[index].distribution.metadata["Name"])


@cache
def _whole() -> dict[str, tuple[str, ...]]:
    return {top: tuple(names) for top, names in importlib.metadata.packages_distributions().items()}


@cache
def providers(top: str) -> tuple[str, ...]:
    """The names of the installed distributions that provide the top-level module `top`, in stdlib's order and by
    its rule (importlib.metadata.packages_distributions): the modules a distribution's top_level.txt declares, else
    those inferred from its file list. Only a distribution with an entry under `top` in its RECORD has its file list
    read; the whole stdlib mapping when this Python keeps that rule under other names."""
    if _INFERRED is None or _DECLARED is None:
        return _whole().get(top, ())
    found: list[str] = []
    for index, installed in enumerate(_installed()):
        if installed.declared:  # stdlib names a distribution once for each time it declares the module
            found += [_name(index) for _ in range(installed.declared.count(top))]
        elif (installed.heads is None or top in installed.heads) and top in _inferred(index):
            found.append(_name(index))
    return tuple(found)


@cache
def version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


@cache
def _distribution(name: str) -> importlib.metadata.Distribution | None:
    try:
        return importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def _entries(found: importlib.metadata.Distribution) -> tuple[Path, frozenset[str]]:
    return Path(str(found.locate_file(""))).resolve(), frozenset(str(file) for file in found.files or [])


@cache
def _listed(distribution: str) -> tuple[Path, frozenset[str]] | None:
    """Where the distribution's files are listed from (resolved) and the entries of its file list, as written."""
    found = _distribution(distribution)
    return None if found is None else _entries(found)


@cache
def _listed_at(index: int) -> tuple[Path, frozenset[str]]:
    """The same, of the installed distribution at `index`: itself, not the first of its name on sys.path (an
    editable install's `NAME.egg-info` in the working directory comes first by name)."""
    return _entries(_installed()[index].distribution)


@cache
def _resolved_files(distribution: str) -> frozenset[Path]:
    found = _distribution(distribution)
    return frozenset(Path(str(file.locate())).resolve() for file in (found.files or [] if found else []))


def _written_in(path: Path, listed: tuple[Path, frozenset[str]] | None) -> bool:
    if listed is None:
        return False
    base, entries = listed
    return path.is_relative_to(base) and path.relative_to(base).as_posix() in entries


def _listed_as_written(path: Path, distribution: str) -> bool:
    return _written_in(path, _listed(distribution))


def installed_by(path: Path, distribution: str) -> bool:
    """Whether the resolved `path` is a file the distribution's file list names (RECORD, installed-files.txt).

    The entry written as the path's place below the distribution's base answers at once; only otherwise is every
    entry resolved (an entry reaching outside with '..', a link), which is what a whole resolved list would say."""
    return _listed_as_written(path, distribution) or (_listed(distribution) is not None
                                                      and path in _resolved_files(distribution))


@cache
def files_sha256(distribution: str) -> str | None:
    """The distribution's files as its RECORD lists them, by the digest two installs of one wheel share
    (harness.record_files); None for a distribution without a RECORD (an egg-info, a system package)."""
    found = _distribution(distribution)
    record = found.read_text("RECORD") if found is not None else None
    return None if record is None else record_files.files_sha256(record)


def _heads_below(path: Path, roots: Iterable[Path]) -> set[str]:
    """The top-level module a file under a site directory belongs to by its place: its first path component there,
    up to its first dot (`scipy` for scipy/sparse/_csparsetools.cpython-311-x86_64-linux-gnu.so)."""
    return {path.relative_to(root).parts[0].split(".", 1)[0] for root in roots
            if path.is_relative_to(root) and path != root}


def owners_of_file(path: Path, module: str, site_roots: Iterable[Path]) -> tuple[str, ...]:
    """The installed distributions whose file list names the resolved `path`, a file of the loaded module `module`.

    A module's name does not always say its distribution (a compiled extension may register itself under a short
    top-level name, `_csparsetools` for a file of scipy's), so the distributions providing the module's top-level name
    are asked first, then those providing the top-level name its place under a site directory gives, then, for a file
    under a site directory, every distribution that lists it where it lies (its entry as written: resolving every
    entry of every distribution would cost a worker seconds)."""
    roots = tuple(site_roots)
    tops = [module.partition(".")[0], *sorted(_heads_below(path, roots))]
    asked: list[str] = []
    for top in tops:
        asked += [name for name in providers(top) if name not in asked]
    owners = tuple(name for name in asked if installed_by(path, name))
    if owners or not any(path.is_relative_to(root) for root in roots):
        return owners
    places = [path.relative_to(root).as_posix() for root in roots if path.is_relative_to(root)]
    recorded = [index for index, installed in enumerate(_installed())
                if any(_recorded(installed.record, place) for place in places)]
    # by the very distribution whose RECORD names it: a name can be shadowed by an egg-info in the working directory
    return tuple(dict.fromkeys(_name(index) for index in recorded if _written_in(path, _listed_at(index))))


def _recorded(record: str, place: str) -> bool:
    """Whether a RECORD holds an entry written `place` (a cheap look before its file list is parsed)."""
    return f"\n{place}," in f"\n{record}" or f'\n"{place}",' in f"\n{record}"
