"""The harness source beside this validator: where it is, which files count, and their digest by the stated rule."""

from pathlib import Path

from .digests import sha256_canonical, sha256_file

HARNESS_DIR = Path(__file__).resolve().parents[2]


def harness_source_files() -> list[Path]:
    return sorted(p for p in HARNESS_DIR.rglob("*")
                  if p.is_file() and p.suffix in {".py", ".json"} and "__pycache__" not in p.parts)


def harness_source_digest() -> str:
    """The stated rule: sha256 of canonical JSON {relative path: sha256} over harness/**/*.py and *.json."""
    return sha256_canonical({p.relative_to(HARNESS_DIR.parent).as_posix(): sha256_file(p)
                             for p in harness_source_files()})
