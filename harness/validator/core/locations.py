"""Where the machine that ran keeps what a receipt binds by digest: the validator's own reading of `locations.json`.

A receipt names no local place: the fixture by its file name and sha256, the store by its directory's name and
digests, the system's source by its root's name and digest, the interpreter by its name and sha256. The run writes,
into its output directory, a local sidecar `locations.json` ({"fixtures" | "stores" | "system_sources" |
"interpreters" | "archives" | "models": {digest: absolute path}}), bound by no digest and never published;
"archives" places the dataset's archive by the sha256 the fixture declares, so a collection of the publisher's own
is re-derived without --archive on the machine that ran, and "models" a model of the publisher's own by its files'
digest. The validator reads it from the directory the aggregate was taken from (its own, or the output directory a
snapshot or a bundle's staged copies came from) as a hint only: --fixture and --store-dir come first, and every byte
found where it points is held to the receipt's digests, so a wrong or missing hint fails or is not verified with the
option to pass, never passes.
"""

from dataclasses import dataclass, field
from pathlib import Path

from .reading import is_file
from .strict_json import StrictJSONError, load_file

NAME = "locations.json"
FIXTURES, STORES, SOURCES, INTERPRETERS, ARCHIVES = "fixtures", "stores", "system_sources", "interpreters", "archives"
MODELS = "models"
KINDS = (FIXTURES, STORES, SOURCES, INTERPRETERS, ARCHIVES, MODELS)


@dataclass(frozen=True)
class Places:
    """The sidecar's entries (digest -> absolute path, by kind), where it was looked for, and why it gave none."""

    file: Path | None = None
    entries: dict[str, dict[str, str]] = field(default_factory=dict)
    problem: str | None = None

    def place(self, kind: str, digest: object) -> Path | None:
        found = self.entries.get(kind, {}).get(digest) if isinstance(digest, str) else None
        return Path(found) if found is not None else None

    def unplaced(self, what: str, option: str) -> str:
        """Why `what` is not known here, and what to pass."""
        why = (f"{self.file} {self.problem}" if self.problem is not None else f"{self.file} places none with its digest"
               if self.file is not None else "no output directory's locations.json is beside it")
        return f"the receipt names its {what} by digest, not by place, and {why}: pass {option}"


def read_places(directory: Path) -> Places:
    """DIRECTORY/locations.json's entries; one missing, unreadable or of another shape places nothing."""
    path = directory / NAME
    if not is_file(path):
        return Places(path, problem="does not exist")
    try:
        value = load_file(path)
    except (OSError, StrictJSONError) as exc:
        return Places(path, problem=f"is not readable strict JSON ({exc})")
    if not isinstance(value, dict):
        return Places(path, problem="is not a JSON object")
    entries = {kind: {str(digest): place for digest, place in value[kind].items()
                      if isinstance(place, str) and Path(place).is_absolute()}
               for kind in KINDS if isinstance(value.get(kind), dict)}
    return Places(path, entries)
