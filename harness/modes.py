"""The retrieval modes as one declared table (harness/schemas/modes.json): each mode's lanes and fusion."""

import json
from dataclasses import dataclass
from pathlib import Path

from harness.errors import HarnessError

TABLE_PATH = Path(__file__).resolve().parent / "schemas" / "modes.json"


class UnknownModeError(HarnessError):
    """A mode that the table does not declare, or that a system does not offer."""


@dataclass(frozen=True)
class Mode:
    name: str
    lanes: tuple[str, ...]  # in fusion order
    fusion: str | None

    @property
    def lexical(self) -> bool:
        return "lexical" in self.lanes

    @property
    def dense(self) -> bool:
        return "dense" in self.lanes


def _table() -> tuple[Mode, ...]:
    declared = json.loads(TABLE_PATH.read_text(encoding="utf-8"))["modes"]
    return tuple(Mode(entry["name"], tuple(entry["lanes"]), entry["fusion"]) for entry in declared)


MODE_TABLE = _table()
MODES = tuple(mode.name for mode in MODE_TABLE)
SEARCHED = tuple(mode.name for mode in MODE_TABLE if mode.lanes)  # the modes a system searches in; not run_file


def mode(name: str, offered: tuple[str, ...] = MODES) -> Mode:
    """The declared mode `name`; refused when undeclared or not among `offered`."""
    if name not in offered:
        raise UnknownModeError(f"unknown mode {name!r}; choose one of {', '.join(offered)}")
    return next(entry for entry in MODE_TABLE if entry.name == name)
