"""The JSON Schemas shipped in harness/schemas/, read as data."""

import functools
import json
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"


@functools.cache
def _validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8")))


def violation(instance: Any, name: str) -> str | None:
    error = best_match(_validator(name).iter_errors(instance))
    if error is None:
        return None
    where = "/".join(str(part) for part in error.absolute_path) or "(top level)"
    return f"at {where}: {error.message}"
