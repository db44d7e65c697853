"""What a system's worker process has loaded, as its receipts bind it (computed inside the worker).

- a module from an installed distribution (a file its RECORD lists) binds the distribution's name and version;
- a module of the standard library or of the harness binds nothing here (the harness is bound by its own source
  digest, the interpreter by the receipt's executable);
- a module of the system's own source (a file under the root `harness.systems.source.source_root` finds, such as
  the system's module or a helper beside it) binds its file by its path relative to that root and its sha256, so the
  same source replayed from another place (a bundle's `system-source/`) is the same system;
- every other module (a package installed in editable mode, a file elsewhere on the path) binds its file by its
  absolute path and sha256;
- a declared environment variable binds the sha256 of its value, or null when unset; never the value.
"""

import os
import site
import sys
import sysconfig
from functools import cache
from pathlib import Path

from harness.hashing import sha256_file, sha256_text
from harness.systems.distributions import installed_by, providers, version

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


def loaded_code(root: Path | None = None) -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """Every loaded module outside the standard library, the distributions and the harness: {module: {source_path,
    sha256}} under the system's source `root`, else {module: {path, sha256}}; and every installed distribution a
    loaded module belongs to: {name: version}."""
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
        owners = [d for d in providers(name.partition(".")[0]) if version(d) is not None]
        for owner in owners:
            distributions[owner] = str(version(owner))
        if any(installed_by(path, owner) for owner in owners):
            continue
        if _under(path, _standard_roots()) and not _under(path, _site_roots()):
            continue
        found = _existing_file(path)
        if found is not None:
            modules[name] = _record(found, root)
    return modules, distributions


def environment_digests(names: tuple[str, ...]) -> dict[str, str | None]:
    return {name: None if os.environ.get(name) is None else sha256_text(os.environ[name]) for name in names}
