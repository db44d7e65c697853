"""Reading a JSON document the harness wrote earlier, with an error that names the file when it is not that."""

import json
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.schema_check import SchemaViolation, validate


def read_document(path: Path, what: str, schema: str | None, fix: str,
                  error: type[HarnessError] = HarnessError) -> dict[str, Any]:
    """The JSON object in `path`, checked against `schema`; else `error` naming `what`, the problem and `fix`."""
    return parse_document(path.read_bytes(), path, what, schema, fix, error)


def parse_document(raw: bytes, path: Path, what: str, schema: str | None, fix: str,
                   error: type[HarnessError] = HarnessError) -> dict[str, Any]:
    """`read_document` for bytes already read from `path`."""
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise error(f"{what} {path} is not valid JSON ({_short(exc)}); {fix}") from None
    if not isinstance(value, dict):
        raise error(f"{what} {path} holds a JSON {type(value).__name__}, not an object; {fix}")
    if schema is not None:
        try:
            validate(value, schema)
        except SchemaViolation as exc:
            raise error(f"{what} {path} does not match its schema ({_short(exc)}); {fix}") from None
    return value


def strict_loads(raw: bytes | str) -> Any:
    """JSON parsed strictly, for files people write by hand or with other tools: a key repeated in one object, and
    NaN or Infinity, raise ValueError naming them (json.loads would keep the last key and take the constants)."""
    return json.loads(raw, object_pairs_hook=_unique_keys, parse_constant=_no_constant)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    if repeated:
        raise ValueError(f"the key {repeated[0]!r} appears twice in one object")
    return dict(pairs)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _short(exc: BaseException, limit: int = 200) -> str:
    text = str(exc)
    return text if len(text) <= limit else text[:limit] + "..."
