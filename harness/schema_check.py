"""Validate JSON documents against the schemas shipped in harness/schemas/.

Whether a document conforms is decided by jsonschema-rs (compiled; a 300-row run is checked in milliseconds rather
than seconds); when it does not, the message is the Python jsonschema library's best match, as everywhere else.
The independent validator checks every artifact again with the Python jsonschema library alone, so the two sides
hold the same schemas through two implementations.
"""

import json
from functools import cache
from importlib import resources
from typing import Any

import jsonschema_rs
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

from harness.errors import HarnessError


class SchemaViolation(HarnessError):
    """A document does not match its JSON Schema."""


def _schema(name: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(resources.files("harness").joinpath(f"schemas/{name}.schema.json")
                                        .read_text(encoding="utf-8"))
    return schema


def _inlined(node: Any, definitions: dict[str, Any], within: tuple[str, ...] = ()) -> Any:
    """The schema with each plain reference to one of its `$defs` replaced by the definition itself (a recursive one
    left as it is): the same rules, but jsonschema no longer resolves a reference per row, which halves the time
    a row takes to check."""
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


def _selected(name: str, definition: str | None) -> dict[str, Any]:
    """Schema `name`, or one of its `$defs` (a part checked before the document exists) as a schema of its own."""
    schema = _schema(name)
    if definition is None:
        return schema
    return {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": f"#/$defs/{definition}"}


@cache
def validator(name: str, definition: str | None = None) -> Draft202012Validator:
    """The Python jsonschema validator of `_selected(name, definition)`, which words a refusal."""
    Draft202012Validator.check_schema(_schema(name))
    schema = _selected(name, definition)
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


@cache
def _compiled(name: str, definition: str | None) -> jsonschema_rs.Validator:
    return jsonschema_rs.validator_for(_selected(name, definition))


def conforms(instance: Any, name: str, definition: str | None = None) -> bool:
    """Whether the instance conforms (a value that is not JSON, such as NaN, does not)."""
    try:
        return bool(_compiled(name, definition).is_valid(instance))
    except (ValueError, TypeError, OverflowError):
        return False


def validate(instance: Any, name: str, definition: str | None = None) -> None:
    if conforms(instance, name, definition):
        return
    what = f"{name} schema{f' ({definition})' if definition else ''}"
    error = best_match(validator(name, definition).iter_errors(instance))
    if error is not None:
        raise SchemaViolation(f"{what}: {describe(error)}")
    try:  # the two implementations disagree, or the value is not JSON: jsonschema-rs's own words
        _compiled(name, definition).validate(instance)
    except jsonschema_rs.ValidationError as exc:
        where = "/".join(str(part) for part in exc.instance_path) or "(top level)"
        raise SchemaViolation(f"{what}: at {where}: {exc.message}") from exc
    except (ValueError, TypeError, OverflowError) as exc:
        raise SchemaViolation(f"{what}: not a JSON value ({exc})") from exc
    raise SchemaViolation(f"{what}: jsonschema-rs rejects it and names no error")
