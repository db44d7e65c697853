"""The digest of the harness package's own source: every .py and .json file under harness/, by relative path."""

import os
from pathlib import Path
from typing import Any

from harness.hashing import settled_sha256_file, sha256_canonical

PACKAGE_ROOT = Path(__file__).resolve().parent
SOURCE_SUFFIXES = (".py", ".json")


def files_under(root: Path) -> list[Path]:
    """Every .py and .json file under `root`, outside __pycache__, sorted: the files `root.rglob('*')` finds, by a
    walk that never descends into __pycache__ nor stats a file of another suffix (a third of the time)."""
    found: list[Path] = []
    for directory, subdirectories, names in os.walk(root):
        subdirectories[:] = [name for name in subdirectories if name != "__pycache__"]
        found.extend(path for name in names if name.endswith(SOURCE_SUFFIXES)
                     and (path := Path(directory, name)).is_file())
    return sorted(found)


def source_files() -> list[Path]:
    return files_under(PACKAGE_ROOT)


def harness_digest() -> dict[str, Any]:
    files = {p.relative_to(PACKAGE_ROOT.parent).as_posix(): settled_sha256_file(p) for p in source_files()}
    return {"sha256": sha256_canonical(files), "files": len(files),
            "rule": "sha256 of canonical JSON {relative path: sha256} over harness/**/*.py and *.json"}
