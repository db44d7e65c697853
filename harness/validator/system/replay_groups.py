"""Aggregates of a system of its own that one replay process can answer together.

Validated one at a time, each aggregate of a system of its own starts a replay process of its own (a Python, the
harness, the system's worker and its libraries), seconds each. Aggregates that a validation would replay against the
same store, fixture and system source are asked in one process instead (`shared_replays`), exactly as a bundle's
reader does; each check still compares its own rows with the answers to its own aggregate, and a replay that fails
leaves each to ask on its own. The places are found as the validation finds them (`core.context`): the options
given, else the output directory's locations.json.
"""

from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from ..core.context import placed_inputs
from ..core.declared import BUILTIN
from ..core.locations import SOURCES, read_places
from ..core.strict_json import StrictJSONError, load_file
from .check_through_system import shared_replays

Places = tuple[Path | None, Path | None, Path | None]  # store, fixture, system source


def system_of_its_own(receipt: Any) -> str | None:
    """The receipt's system source digest when it is a system of its own; None for the built-in one, a run file's
    (read again, never asked) or a receipt of another shape (its own validation names what is wrong)."""
    try:
        spec, digest = receipt["system"]["spec"], receipt["system"]["source"]["sha256"]
        ranking = receipt["system"]["declarations"].get("ranking")
    except (KeyError, TypeError, AttributeError):
        return None
    return digest if spec != BUILTIN and ranking is None and isinstance(digest, str) else None


def replay_groups(aggregates: Sequence[tuple[Path, Path | None]], fixture: Path | None,
                  store_dir: Path | None) -> dict[Places, list[Path]]:
    """(aggregate, the directory whose locations.json places its inputs, None: its own) -> the aggregates of a system
    of its own, by the places their replay reads; a place none of them has is None."""
    groups: dict[Places, list[Path]] = {}
    for aggregate, home in aggregates:
        try:
            receipt = load_file(aggregate).get("receipt")
        except (OSError, StrictJSONError, AttributeError):
            continue
        digest = system_of_its_own(receipt)
        if digest is None:
            continue
        places = read_places(home or aggregate.parent)
        fixture_path, store = placed_inputs(receipt, places, fixture, store_dir)
        groups.setdefault((store, fixture_path, places.place(SOURCES, digest)), []).append(aggregate)
    return groups


@contextmanager
def replays_shared(aggregates: Sequence[tuple[Path, Path | None]], fixture: Path | None, store_dir: Path | None,
                   validated: Callable[[Path], bool]) -> Iterator[list[str]]:
    """For the block, one replay process for each group of two or more aggregates that will be `validated` (not
    answered by a stored verdict); yields what happened, in words."""
    with ExitStack() as stack:
        said = []
        for (store, fixture_path, source), group in replay_groups(aggregates, fixture, store_dir).items():
            asked = [aggregate for aggregate in group if validated(aggregate)] if len(group) > 1 else []
            if len(asked) > 1:
                said.append(stack.enter_context(shared_replays(asked, store, fixture_path, source)))
        yield said
