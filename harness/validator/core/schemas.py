"""The JSON Schemas shipped in harness/schemas/, read as data."""

import functools
import json
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schemas"


def _inlined(node: Any, definitions: dict[str, Any], within: tuple[str, ...] = ()) -> Any:
    """Each plain reference to one of the schema's `$defs` replaced by the definition (a recursive one left as it
    is): the same rules, checked about twice as fast, since no reference is resolved per row."""
    if isinstance(node, list):
        return [_inlined(item, definitions, within) for item in node]
    if not isinstance(node, dict):
        return node
    reference = node.get("$ref")
    if len(node) == 1 and isinstance(reference, str) and reference.startswith("#/$defs/"):
        name = reference.removeprefix("#/$defs/")
        if name in definitions and name not in within:
            return _inlined(definitions[name], definitions, (*within, name))
    return {key: value if key in ("$defs", "const", "enum", "examples") else _inlined(value, definitions, within)
            for key, value in node.items()}


@functools.cache
def _validator(name: str) -> Draft202012Validator:
    schema = json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))
    return Draft202012Validator(_inlined(schema, schema.get("$defs", {})))


def describe(error: ValidationError) -> str:
    """'at <JSON path of the offending object>: <what is wrong>'; a refused key of a data map is named as such."""
    # a key from the document is shown as Python would write it when it holds a line break or other control
    # character, so that one message stays one line
    where = "/".join(str(part) if str(part).isprintable() else repr(part) for part in error.absolute_path) \
        or "(top level)"
    if "propertyNames" in error.absolute_schema_path:  # the error's instance is the key, its path the map's
        return f"at {where}: key {error.instance!r} is not allowed: {error.message}"
    return f"at {where}: {error.message}"


def violation(instance: Any, name: str) -> str | None:
    checker = _validator(name)
    if checker.is_valid(instance):  # faster than collecting errors, which are needed only for the message
        return None
    error = best_match(checker.iter_errors(instance))
    return None if error is None else describe(error)
