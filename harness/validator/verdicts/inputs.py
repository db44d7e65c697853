"""The bytes a validation read, by digest: its subject's files by role (they move with a snapshot or a bundle's
staging: the aggregate, its rows, the freeze record), every other file by path (a missing one as null), every
directory listed by the digest of its names, and the append-only held-out record by the digest of its id and the
rows the validation read (up to the run's own entry): a later run appends a row and leaves the verdict standing."""

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.context import input_paths
from ..core.digests import sha256_canonical
from ..core.reading import Reading, stat_of
from ..core.settled import settled_digest
from ..core.strict_json import StrictJSONError, load_file
from ..history.looks_record import rows_digest


@dataclass(frozen=True)
class Digests:
    roles: dict[str, str | None]
    files: dict[str, str | None]
    journals: dict[str, str | None]
    listings: dict[str, str | None]
    records: dict[str, dict[str, Any]]

    def record(self) -> dict[str, Any]:
        return {"roles": self.roles, "files": self.files, "journals": self.journals, "listings": self.listings,
                "records": self.records}


def subject_roles(aggregate: Path, rows: Path | None, freeze: Path | None) -> dict[str, Path | None]:
    """The subject's files as the validator finds them (context.load's rule)."""
    try:
        document = load_file(aggregate)
    except (OSError, StrictJSONError):
        return {"aggregate": aggregate, "rows": rows, "freeze": freeze}
    found_rows, found_freeze = input_paths(aggregate, document, rows, freeze)
    return {"aggregate": aggregate, "rows": found_rows, "freeze": found_freeze}


DIRECTORY = "directory"  # a path whose presence as a directory decided a check


def file_digest(path: str | Path | None) -> str | None:
    if path is None:
        return None
    if os.path.isdir(path):
        return DIRECTORY
    try:
        return settled_digest(Path(path))
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def journal_digest(path: str) -> str | None:
    """A write-ahead log by its content: an empty or absent one holds nothing."""
    try:
        return file_digest(path) if os.path.getsize(path) else None
    except OSError:
        return None


def listing_digest(directory: str) -> str | None:
    """The names in a directory, bytecode caches aside: the interpreter writes them (a system's worker, say) and no
    check reads them, so one appearing leaves a verdict standing."""
    try:
        return sha256_canonical(sorted(name for name in os.listdir(directory) if name != "__pycache__"))
    except OSError:
        return None


def role_digests(roles: dict[str, Path | None]) -> dict[str, str | None]:
    return {role: file_digest(path) for role, path in roles.items()}


def taken(reading: Reading, roles: dict[str, Path | None]) -> tuple[Digests | None, str]:
    """The reading's digests now, or None and why they cannot key a verdict (a file changed while it was read)."""
    if reading.broken:
        return None, f"a read could not be followed ({reading.broken})"
    subject = {os.path.abspath(path) for path in roles.values() if path is not None}
    files: dict[str, str | None] = {}
    for path, seen in sorted(reading.files.items()):
        if path in reading.written or path in reading.records:
            continue
        if path in subject:  # digested by its role, below
            if stat_of(path) != seen:
                return None, f"{path} changed while it was validated"
            continue
        if os.path.isdir(path):
            files[path] = DIRECTORY
            continue
        if stat_of(path) != seen:
            return None, f"{path} changed while it was validated"
        files[path] = file_digest(path)
        if stat_of(path) != seen:
            return None, f"{path} changed while it was validated"
    journals = {path: journal_digest(path) for path in sorted(reading.journals)
                if path.removesuffix("-wal") not in reading.records}
    listings = {directory: listing_digest(directory) for directory in sorted(reading.listings)}
    records = {path: {"through": through, "rows": rows_digest(path, through)}
               for path, through in sorted(reading.records.items())}
    return Digests(role_digests(roles), files, journals, listings, records), ""


def changed(stored: dict[str, Any], roles: dict[str, Path | None]) -> Iterator[str]:
    """What differs now from the digests a verdict stored, in turn: its roles by name, other files and listings by
    path. Lazy, so a caller that has heard enough hashes no further."""
    current = role_digests(roles)
    yield from (f"the {role}" for role, digest in current.items() if digest != stored["roles"].get(role))
    yield from (path for path, digest in stored["files"].items() if file_digest(path) != digest)
    yield from (path for path, digest in stored["journals"].items() if journal_digest(path) != digest)
    yield from (f"the listing of {path}" for path, digest in stored["listings"].items()
                if listing_digest(path) != digest)
    yield from (f"the rows of {path} up to position {rows['through']}" for path, rows in stored.get("records",
                {}).items() if rows_digest(path, rows["through"]) != rows["rows"])
