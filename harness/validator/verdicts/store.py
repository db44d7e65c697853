"""Verdict files: `validation/<aggregate>.<scope>.verdict.json` in the aggregate's directory, or in the directory a
caller names (the output directory, when the validator checks a snapshot of its files). A stored verdict is reused
only when its seal verifies with this machine's key and the validator, its environment, the options and every
digest of what it read are those of now; the report then says so (notes.stored_verdict)."""

import datetime
import itertools
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.report import Report, report_from_dict
from .identity import validator_identity
from .inputs import Digests, changed
from .key import seal, sealed

SCHEMA = "scifact-validator-verdict-v1"
FOLDER = "validation"
ACCEPTED = {"full": ("full",), "sample": ("sample", "full"), "none": ("none",)}  # a full re-embedding covers a sample


@dataclass(frozen=True)
class Lookup:
    report: Report | None  # the stored report, when reused
    why: str  # why it was reused, or why the aggregate is validated again


def verdict_file(home: Path, aggregate: Path, scope: str) -> Path:
    return home / FOLDER / f"{aggregate.name.removesuffix('.aggregate.json')}.{scope}.verdict.json"


def _refusal(document: Any, key: bytes, options: dict[str, Any], roles: dict[str, Path | None]) -> str | None:
    if not isinstance(document, dict) or document.get("schema") != SCHEMA:
        return "it is not a stored verdict"
    if not sealed(document, key):
        return "its seal does not verify with this machine's key (edited, or sealed elsewhere)"
    identity = validator_identity()
    if document["validator"]["source_sha256"] != identity["source_sha256"]:
        return "the validator's source changed since"
    if document["validator"]["environment_sha256"] != identity["environment_sha256"]:
        return "the interpreter or an installed distribution changed since"
    stated = document["options"]
    if stated.get("embedding") not in ACCEPTED[options["embedding"]] or {**stated, "embedding": None} != {
            **options, "embedding": None}:
        return "it was validated with other options"
    differing = list(itertools.islice(changed(document["read"], roles), 2))  # two are reason enough
    return f"{' and '.join(differing)} changed since" if differing else None


def lookup(home: Path, aggregate: Path, roles: dict[str, Path | None], options: dict[str, Any],
           key: bytes) -> Lookup:
    """A stored verdict for these bytes and options, or why there is none to reuse."""
    reasons = []
    for scope in ACCEPTED[options["embedding"]]:
        path = verdict_file(home, aggregate, scope)
        if not path.is_file():
            continue
        try:
            document = json.loads(path.read_bytes())
        except (OSError, ValueError) as exc:
            reasons.append(f"{path.name} is unreadable ({exc})")
            continue
        try:
            refusal = _refusal(document, key, options, roles)
        except (KeyError, TypeError, AttributeError) as exc:  # sealed, but not of this validator's shape
            refusal = f"it is not a verdict this validator stores ({type(exc).__name__}: {exc})"
        if refusal is not None:
            reasons.append(f"{path.name}: {refusal}")
            continue
        report = report_from_dict(document["report"])
        report.subject = str(aggregate)
        report.notes["stored_verdict"] = {"reused": True, "validated_at": document["validated_at"],
                                          "validator": document["validator"]["source_sha256"], "file": str(path),
                                          "embedding": document["options"]["embedding"]}
        return Lookup(report, f"the verdict stored in {path} on {document['validated_at']}")
    return Lookup(None, "; ".join(reasons) if reasons else "no stored verdict")


def store(home: Path, aggregate: Path, digests: Digests, options: dict[str, Any], report: Report,
          key: bytes) -> Path:
    """Write the sealed verdict (atomically); its path. Raises OSError or ValueError when it cannot be written."""
    body = json.loads(json.dumps(report.to_dict(), default=str, allow_nan=False))
    document: dict[str, Any] = {
        "schema": SCHEMA, "aggregate": aggregate.name,
        "validated_at": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "validator": validator_identity(), "options": options, "read": digests.record(), "report": body}
    document["seal"] = seal(document, key)
    path = verdict_file(home, aggregate, options["embedding"])
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            json.dump(document, handle, indent=1, ensure_ascii=False)
            handle.write("\n")
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return path
