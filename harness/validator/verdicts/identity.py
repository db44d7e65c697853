"""Who validated: the validator's own source (every file of harness/validator, its pins among them, and the schemas
it reads) and the interpreter and installed distributions it ran on, each by digest."""

import functools
import importlib.metadata
import os
import platform
import sys

from ..core.digests import sha256_canonical, sha256_file
from ..core.reading import VALIDATOR_DIR

SCHEMA_DIR = VALIDATOR_DIR.parent / "schemas"


@functools.cache
def source_digest() -> str:
    """sha256 of canonical JSON {path: sha256} over harness/validator/**/*.py and *.json and harness/schemas/*.json."""
    files = [p for p in VALIDATOR_DIR.rglob("*") if p.suffix in {".py", ".json"} and "__pycache__" not in p.parts]
    files += list(SCHEMA_DIR.glob("*.json"))
    return sha256_canonical({p.relative_to(VALIDATOR_DIR.parent).as_posix(): sha256_file(p)
                             for p in sorted(files) if p.is_file()})


@functools.cache
def environment_digest() -> str:
    """The interpreter (by its resolved path: `.venv/bin/python`, the Makefile's, and `.venv/bin/python3`, the console
    scripts', are one interpreter) and every installed distribution by version (numpy, jsonschema, the model's
    libraries)."""
    distributions = {str(d.metadata["Name"]).lower(): d.version for d in importlib.metadata.distributions()
                     if d.metadata["Name"]}
    return sha256_canonical({"python": sys.version, "executable": os.path.realpath(sys.executable),
                             "machine": platform.machine(), "distributions": dict(sorted(distributions.items()))})


def validator_identity() -> dict[str, str]:
    return {"source_sha256": source_digest(), "environment_sha256": environment_digest()}
