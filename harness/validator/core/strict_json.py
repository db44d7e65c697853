"""Strict JSON: NaN, Infinity, numbers that overflow to infinity and duplicate keys are errors, not values."""

import json
from pathlib import Path
from typing import Any


class StrictJSONError(ValueError):
    """The document is not strict JSON."""


def _no_constants(name: str) -> Any:
    raise StrictJSONError(f"{name} is not valid JSON (NaN and Infinity are refused)")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise StrictJSONError(f"duplicate key {key!r}")
        result[key] = value
    return result


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise StrictJSONError(f"the number {text} overflows to infinity")
    return value


def loads(text: str | bytes) -> Any:
    try:
        return json.loads(text, parse_constant=_no_constants, parse_float=_finite, object_pairs_hook=_no_duplicates)
    except StrictJSONError:
        raise
    except ValueError as exc:
        raise StrictJSONError(str(exc)) from exc


def load_file(path: Path) -> Any:
    return loads(path.read_bytes())


def load_lines(path: Path) -> list[Any]:
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        raise StrictJSONError(f"{path} does not end with a newline: the last row may be torn")
    rows = []
    for number, line in enumerate(data.splitlines(), start=1):
        try:
            rows.append(loads(line))
        except StrictJSONError as exc:
            raise StrictJSONError(f"{path}, line {number}: {exc}") from exc
    return rows
