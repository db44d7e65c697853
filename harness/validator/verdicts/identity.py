"""Who validated: the validator's own source (every file of harness/validator, its pins among them, and the schemas
it reads) and the interpreter and installed distributions it ran on, each by digest; and, narrower, what a
re-embedding's outcome depends on beyond the fixture and the model."""

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


@functools.cache
def embedding_code_digest() -> str:
    """sha256 of canonical JSON {path: sha256} over the validator's embedding code and the record of a re-embedding."""
    files = [p for p in (VALIDATOR_DIR / "embedding").rglob("*.py") if "__pycache__" not in p.parts]
    files.append(VALIDATOR_DIR / "verdicts" / "re_embedding.py")
    return sha256_canonical({p.relative_to(VALIDATOR_DIR.parent).as_posix(): sha256_file(p)
                             for p in sorted(files) if p.is_file()})


def re_embedding_identity() -> dict[str, str]:
    """What a re-embedding's outcome depends on beyond the fixture and the verifier (the model's files and libraries,
    or the server's model digest): the validator's embedding code, the interpreter's version, numpy's and the
    machine's architecture. Not the interpreter's path or the other installed distributions: one fixture is
    re-embedded once per machine, whichever venv validates it."""
    return {"embedding_code_sha256": embedding_code_digest(), "python": platform.python_version(),
            "numpy": importlib.metadata.version("numpy"), "machine": platform.machine()}

