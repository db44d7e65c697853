"""What a system's worker process has loaded, as its receipts bind it (computed inside the worker).

- a module from an installed distribution (a file its RECORD lists, wherever the distribution lies: a venv inside the
  system's own repository included) binds the distribution's name, version and the digest of its RECORD's files;
- a module of the standard library or of the harness binds nothing here (the harness is bound by its own source
  digest, the interpreter by the receipt's executable);
- a module of the system's own source (a file under the root `harness.systems.source.source_root` finds, such as
  the system's module or a helper beside it) binds its file by its path relative to that root and its sha256, so the
  same source replayed from another place (a bundle's `system-source/`) is the same system;
- every other module (a package installed in editable mode, a file elsewhere on the path, a file under a site
  directory that no distribution lists) binds its file by its absolute path and sha256;
- a declared environment variable binds the sha256 of its value, or null when unset; never the value.
"""

import os
import site
import sys
import sysconfig
from functools import cache
from pathlib import Path
from typing import NamedTuple

from harness.hashing import sha256_file, sha256_text
from harness.systems.distributions import files_sha256, owners_of_file, providers, version

HARNESS_ROOT = Path(__file__).resolve().parents[2]


def _under(path: Path, roots: tuple[Path, ...]) -> bool:
    return any(path.is_relative_to(root) for root in roots)


@cache
def _standard_roots() -> tuple[Path, ...]:
    return tuple({Path(sysconfig.get_path(name)).resolve() for name in ("stdlib", "platstdlib")})


@cache
def _site_roots() -> tuple[Path, ...]:
    roots = {sysconfig.get_path(name) for name in ("purelib", "platlib")}
    roots |= set(site.getsitepackages()) | {site.getusersitepackages()}
    return tuple(Path(root).resolve() for root in roots)


def _existing_file(path: Path) -> Path | None:
    """The file a module was read from: itself, or the archive it sits in (zipimport)."""
    return next((candidate for candidate in (path, *path.parents) if candidate.is_file()), None)


def _record(found: Path, root: Path | None) -> dict[str, str]:
    if root is not None and found.is_relative_to(root):
        return {"source_path": found.relative_to(root).as_posix(), "sha256": sha256_file(found)}
    return {"path": str(found), "sha256": sha256_file(found)}


class Loaded(NamedTuple):
    """What the worker process has loaded, as the receipts bind it."""

    modules: dict[str, dict[str, str]]  # module -> {source_path | path, sha256}
    distributions: dict[str, str]  # name -> version
    distribution_files: dict[str, str | None]  # name -> the digest of its RECORD's files (None: it has no RECORD)


def loaded_code(root: Path | None = None) -> Loaded:
    """Every loaded module outside the standard library, the distributions and the harness: {module: {source_path,
    sha256}} under the system's source `root` (never a file under a site directory), else {module: {path, sha256}};
    and every installed distribution a loaded module belongs to, by version and by its RECORD's files."""
    root = None if root is None else root.resolve()
    modules: dict[str, dict[str, str]] = {}
    distributions: dict[str, str] = {}
    for name, module in sorted(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if not isinstance(file, str) or name == "__main__":
            continue
        path = Path(file).resolve()
        if path.is_relative_to(HARNESS_ROOT):
            continue
        found = _existing_file(path)
        named = [d for d in providers(name.partition(".")[0]) if version(d) is not None]
        shipped = [d for d in owners_of_file(found or path, name, _site_roots()) if version(d) is not None]
        for owner in (*named, *shipped):
            distributions[owner] = str(version(owner))
        if shipped:
            continue
        site = _under(path, _site_roots())
        if _under(path, _standard_roots()) and not site:
            continue
        if found is not None:
            modules[name] = _record(found, None if site else root)
    return Loaded(modules, distributions, {name: files_sha256(name) for name in sorted(distributions)})


def environment_digests(names: tuple[str, ...]) -> dict[str, str | None]:
    return {name: None if os.environ.get(name) is None else sha256_text(os.environ[name]) for name in names}
