"""The harness source beside this validator: where it is, which files count, and their digest by the stated rule."""

import os
from pathlib import Path

from .digests import sha256_canonical
from .settled import settled_digest

HARNESS_DIR = Path(__file__).resolve().parents[2]


def harness_source_files() -> list[Path]:
    """harness/**/*.py and *.json outside __pycache__ (symbolic links to directories not followed), sorted."""
    found: list[Path] = []
    for directory, subdirectories, names in os.walk(HARNESS_DIR):
        subdirectories[:] = [name for name in subdirectories if name != "__pycache__"]
        found.extend(path for name in names if name.endswith((".py", ".json"))
                     and (path := Path(directory, name)).is_file())
    return sorted(found)


def harness_source_state() -> tuple[str, int]:
    """The stated rule's digest (sha256 of canonical JSON {relative path: sha256} over harness/**/*.py and *.json)
    and the number of files it covers, from one reading of the tree (a file hashed once per process while it stands
    still: core/settled.py)."""
    files = harness_source_files()
    return (sha256_canonical({p.relative_to(HARNESS_DIR.parent).as_posix(): settled_digest(p) for p in files}),
            len(files))


def harness_source_digest() -> str:
    return harness_source_state()[0]
