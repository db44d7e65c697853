"""Facts computed from a file's exact bytes, kept for the process under the digest of those bytes: a later
validation of the same fixture (six aggregates share one) recomputes nothing, and other bytes never match."""

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
_FACTS: dict[tuple[str, str], Any] = {}


def of_content(digest: str | None, fact: str, compute: Callable[[], T]) -> T:
    """`compute()`, a pure function of the bytes whose sha256 is `digest`, made once per digest and fact; computed
    every time when the digest is unknown (None)."""
    if digest is None:
        return compute()
    key = (digest, fact)
    if key not in _FACTS:
        _FACTS[key] = compute()
    value: T = _FACTS[key]
    return value
