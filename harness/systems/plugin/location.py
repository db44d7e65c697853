"""Where a system given as `module:attribute` is imported from, found in the harness's process without importing it.

The `pytest` and `scifact-harness` scripts do not put the current directory on the module path (`python -m` does), so
a module lying beside the user's pyproject.toml is looked for in the directories a command names (`--system-path`;
by default the current directory, or pytest's rootdir) when the interpreter's own path does not hold it. The
directory found is handed to the system's worker and printed in every next command, so each works as printed from
wherever it is typed; a module installed in the environment needs none.
"""

import importlib.machinery
import importlib.util
import site
import sys
import sysconfig
from collections.abc import Sequence
from pathlib import Path

from harness.systems.plugin.loading import SystemSpecError


def _installed_directories() -> set[Path]:
    """Where the interpreter finds modules of its own and installed distributions: never worth naming."""
    paths = {sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    paths |= set(site.getsitepackages()) | {site.getusersitepackages()}
    return {Path(p).resolve() for p in paths if p}


def _containing_directory(spec: importlib.machinery.ModuleSpec) -> Path | None:
    """The path entry a top-level module or package was found in."""
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations))).resolve().parent
    if spec.origin and spec.has_location:
        return Path(spec.origin).resolve().parent
    return None


def _on_path(top: str) -> importlib.machinery.ModuleSpec | None:
    try:
        return importlib.util.find_spec(top)  # a top-level name: nothing is imported
    except (ImportError, ValueError):
        return None


def locate(spec: str, candidates: Sequence[Path], option: str, path_usage: str) -> Path | None:
    """The directory the worker must add to its module path to import `spec`'s module: where the interpreter's own
    path finds it (the current directory under `python -m`, PYTHONPATH, a rootdir conftest), else the first of
    `candidates` holding it; None for a registered name or a module installed in the environment. A module found
    nowhere is refused before any work, with what to do (`path_usage`: how the command takes a directory)."""
    module, colon, _ = spec.partition(":")
    if not colon:
        return None
    top = module.partition(".")[0]
    found = _on_path(top)
    if found is not None:
        directory = _containing_directory(found)
        return None if directory is None or directory in _installed_directories() else directory
    for candidate in candidates:
        if importlib.machinery.PathFinder.find_spec(top, [str(candidate)]) is not None:
            return candidate.resolve()
    where = ", ".join(str(c) for c in candidates) or "no directory"
    raise SystemSpecError(f"{option} {spec}: no module {top!r} on this interpreter's path ({sys.executable}) or in "
                          f"{where}: pass {path_usage} naming the directory that holds {top!r} (for "
                          f"src/{top}/, DIR is src), or install the package that provides it")
