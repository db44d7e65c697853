"""`run-file.json`: what a run file's directory keeps, the copy's name and digest and who made the run."""

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.hashing import sha256_bytes
from harness.systems.runfile.formats import RunFile

RECORD_NAME = "run-file.json"
SCHEMA = "scifact-harness-run-file-1"
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


class RunRecordError(HarnessError):
    """A run file's record that cannot be read, or a producer's name that cannot be used."""


@dataclass(frozen=True)
class StoredRun:
    name: str  # the run's producer, as --name or the TREC run tag says
    format: str
    file: str  # the copy's name in the directory
    sha256: str
    size: int  # bytes
    given_name: str  # the file's name as it was given
    tag: str | None
    queries: int
    entries: int

    @classmethod
    def of(cls, data: bytes, given_name: str, run: RunFile, name: str | None) -> "StoredRun":
        chosen = name if name is not None else run.tag
        if chosen is None:
            raise RunRecordError(f"{given_name}: a {run.format} run names no producer; name it with --name NAME "
                                 "(the system that made the run, as comparisons and reports will call it)")
        if NAME_PATTERN.fullmatch(chosen) is None:
            said = "--name" if name is not None else "the run tag"
            raise RunRecordError(f"{given_name}: {said} {chosen!r} cannot name a run: a letter or digit, then letters, "
                                 "digits, '.', '_' or '-', at most 64 characters; pass --name NAME")
        return cls(name=chosen, format=run.format, file=f"run.{run.format}", sha256=sha256_bytes(data),
                   size=len(data), given_name=given_name, tag=run.tag, queries=len(run.rankings),
                   entries=run.entries)

    def summary(self) -> dict[str, Any]:
        """The run file as the receipts describe it (the configuration of the system that is this run)."""
        return {key: value for key, value in asdict(self).items()}


def record_bytes(stored: StoredRun) -> bytes:
    return json.dumps({"schema": SCHEMA, **stored.summary()}, indent=1, sort_keys=True).encode() + b"\n"


def read_record(directory: Path) -> StoredRun | None:
    """The run the directory keeps, None when it keeps none."""
    path = directory / RECORD_NAME
    try:
        document = json.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise RunRecordError(f"{path} cannot be read ({exc}); evaluate the run again in a new --store-dir") from exc
    if not isinstance(document, dict) or document.pop("schema", None) != SCHEMA:
        raise RunRecordError(f"{path} is not a {SCHEMA} record; evaluate the run again in a new --store-dir")
    try:
        return StoredRun(**document)
    except TypeError as exc:
        raise RunRecordError(f"{path} is not a {SCHEMA} record ({exc}); evaluate the run again in a new "
                             "--store-dir") from exc
