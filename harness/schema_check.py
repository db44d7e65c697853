"""Validate JSON documents against the schemas shipped in harness/schemas/."""

import json
from functools import cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

from harness.errors import HarnessError


class SchemaViolation(HarnessError):
    """A document does not match its JSON Schema."""


@cache
def validator(name: str) -> Draft202012Validator:
    text = resources.files("harness").joinpath(f"schemas/{name}.schema.json").read_text(encoding="utf-8")
    schema = json.loads(text)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def describe(error: ValidationError) -> str:
    """'at <JSON path of the offending object>: <what is wrong>'; a refused key of a data map is named as such."""
    # a key from the document is shown as Python would write it when it holds a line break or other control
    # character, so that one message stays one line
    where = "/".join(str(part) if str(part).isprintable() else repr(part) for part in error.absolute_path) \
        or "(top level)"
    if "propertyNames" in error.absolute_schema_path:  # the error's instance is the key, its path the map's
        return f"at {where}: key {error.instance!r} is not allowed: {error.message}"
    return f"at {where}: {error.message}"


def validate(instance: Any, name: str) -> None:
    error = best_match(validator(name).iter_errors(instance))
    if error is not None:
        raise SchemaViolation(f"{name} schema: {describe(error)}")
