"""A re-embedding of a fixture, kept once per scope (the full one, or the first sample drawn), fixture (its JSON and
its vectors, by digest), verifier (the model's files and libraries, or the Ollama server and model digest) and what
else decides the vectors (the validator's embedding code, the interpreter's version, numpy's, the architecture:
`identity.re_embedding_identity`; not which venv runs it), sealed like a verdict, in `re-embeddings/` beside the key.
A later check of the same scope and fixture reuses its outcome, and says "re-embedded on <date> by validator
<digest>; reused"."""

import datetime
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from ..core.digests import sha256_canonical
from .identity import re_embedding_identity, source_digest
from .key import RECORDS, KeyUnusable, load_key, seal, sealed, state_directory

SCHEMA = "scifact-validator-re-embedding-v1"


def material(scope: str, fixture_sha256: str, vectors_sha256: str, verifier: dict[str, Any]) -> dict[str, Any]:
    """What the outcome of a re-embedding ('full', or a 'sample' drawn by this validator) depends on."""
    return {"scope": scope, "fixture_sha256": fixture_sha256, "vectors_sha256": vectors_sha256, "verifier": verifier,
            "embedding": re_embedding_identity()}


def _path(key_material: dict[str, Any]) -> Path:
    return state_directory() / RECORDS / (sha256_canonical(key_material).removeprefix("sha256:") + ".json")


def recall(key_material: dict[str, Any]) -> dict[str, Any] | None:
    """The stored outcome for exactly this material, sealed with this machine's key; None otherwise."""
    path = _path(key_material)
    try:
        key = load_key()
        document = json.loads(path.read_bytes())
    except (KeyUnusable, OSError, ValueError):
        return None
    if not isinstance(document, dict) or document.get("schema") != SCHEMA or not sealed(document, key) \
            or document.get("material") != key_material:
        return None
    outcome: dict[str, Any] = document["outcome"]
    return outcome


def remember(key_material: dict[str, Any], outcome: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """Record the outcome; the outcome with when and by which validator it was re-embedded, and why it could not be
    recorded (None when it was: a record that cannot be written only means re-embedding again later)."""
    stamped = {**outcome, "re_embedded_at": datetime.datetime.now(datetime.UTC).strftime(
        "%Y-%m-%dT%H:%M:%SZ"), "validator": source_digest()}
    try:
        key = load_key()
        document: dict[str, Any] = {"schema": SCHEMA, "material": key_material, "outcome": stamped}
        document["seal"] = seal(document, key)
        path = _path(key_material)
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        descriptor, name = tempfile.mkstemp(prefix=".re-embedding-", dir=path.parent)
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                json.dump(document, handle, indent=1, allow_nan=False)
            os.replace(name, path)
        finally:
            Path(name).unlink(missing_ok=True)
    except (KeyUnusable, OSError, ValueError) as exc:
        return stamped, str(exc)
    return stamped, None
