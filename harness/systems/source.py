"""The source a system runs from, by content: its files' sha256 under one root, and the package that ships it."""

import inspect
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from harness.hashing import settled_sha256_file, sha256_canonical
from harness.source_digest import files_under
from harness.systems.distributions import providers, version

SOURCE_RULE = "sha256 of canonical JSON {path relative to root: sha256} over the system's *.py and *.json files"


def _module_of(system: object) -> ModuleType:
    module = inspect.getmodule(system if inspect.isclass(system) or inspect.ismodule(system) else type(system))
    if module is None:
        raise ValueError(f"cannot tell which module defines {system!r}")
    return module


def source_root(system: object) -> tuple[Path, list[Path]]:
    """A module inside a package: every file of its top-level package; a lone module: its one file."""
    module = _module_of(system)
    file = getattr(module, "__file__", None)
    if file is None:
        raise ValueError(f"module {module.__name__} has no source file to hash")
    top = module.__name__.partition(".")[0]
    top_module = sys.modules.get(top)
    top_file = getattr(top_module, "__file__", None) if top_module is not None else None
    if top != module.__name__ and top_file is not None and Path(top_file).name == "__init__.py":
        root = Path(top_file).resolve().parent
        return root.parent, files_under(root)
    path = Path(file).resolve()
    return path.parent, [path]


def source_record(root: Path, files: list[Path]) -> dict[str, Any]:
    digests = {p.relative_to(root).as_posix(): settled_sha256_file(p) for p in files}
    return {"sha256": sha256_canonical(digests), "rule": SOURCE_RULE, "root": str(root), "files": digests}


def package_of(system: object) -> dict[str, str] | None:
    """The installed distribution that ships the system's top-level module, with its version; None if none does."""
    top = _module_of(system).__name__.partition(".")[0]
    for name in providers(top):
        found = version(name)
        if found is not None:
            return {"name": name, "version": found}
    return None
