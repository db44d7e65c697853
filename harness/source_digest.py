"""The digest of the harness package's own source: every .py and .json file under harness/, by relative path."""

from pathlib import Path
from typing import Any

from harness.hashing import sha256_canonical, sha256_file

PACKAGE_ROOT = Path(__file__).resolve().parent


def source_files() -> list[Path]:
    return sorted(p for p in PACKAGE_ROOT.rglob("*")
                  if p.is_file() and p.suffix in {".py", ".json"} and "__pycache__" not in p.parts)


def harness_digest() -> dict[str, Any]:
    files = {p.relative_to(PACKAGE_ROOT.parent).as_posix(): sha256_file(p) for p in source_files()}
    return {"sha256": sha256_canonical(files), "files": len(files),
            "rule": "sha256 of canonical JSON {relative path: sha256} over harness/**/*.py and *.json"}
