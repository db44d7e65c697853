"""One store directory, one system: the first build writes which system it is for, and every later build or open
by another system is refused before it touches the directory, naming both. A store's run ledger and held-out turns
are one system's; two systems sharing a directory would also share, and confuse, them."""

import json
from pathlib import Path

from harness.atomic import write_bytes_atomic
from harness.errors import HarnessError
from harness.fixture.corpus_fixture import CorpusFixture
from harness.systems.protocol import SystemBuilder, SystemUnderTest

OWNER_NAME = "scifact-system.json"


class StoreOwnerError(HarnessError):
    """The store directory was built for another system."""


def _owner(directory: Path) -> str | None:
    path = directory / OWNER_NAME
    try:
        recorded = json.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise StoreOwnerError(f"{path} is not the record of the system this store was built for ({exc}); restore it, "
                              "or use a new store directory") from exc
    spec = recorded.get("system") if isinstance(recorded, dict) else None
    if not isinstance(spec, str):
        raise StoreOwnerError(f"{path} names no system; restore it, or use a new store directory")
    return spec


def check_owner(directory: Path, spec: str, option: str) -> None:
    owner = _owner(directory)
    if owner is not None and owner != spec:
        raise StoreOwnerError(f"the store directory {directory} was built for the system {owner!r} ({option} {owner}), "
                              f"not for {spec!r}: give each system a store directory of its own (its store, run ledger "
                              f"and held-out turns are that system's), or run {owner!r} here")


def claim(directory: Path, spec: str, option: str) -> None:
    """Refused when another system owns `directory`; else it is `spec`'s from now on."""
    check_owner(directory, spec, option)
    if _owner(directory) is None:
        directory.mkdir(parents=True, exist_ok=True)
        write_bytes_atomic(directory / OWNER_NAME, json.dumps({"system": spec}).encode() + b"\n")


class OwnedStore:
    """A builder that holds each store directory to the one system it was first built for."""

    def __init__(self, inner: SystemBuilder, spec: str, option: str) -> None:
        self.inner, self.spec, self.option = inner, spec, option

    @property
    def modes(self) -> tuple[str, ...]:
        return self.inner.modes

    def build(self, fixture: CorpusFixture, directory: Path) -> tuple[SystemUnderTest, bool]:
        claim(directory, self.spec, self.option)
        return self.inner.build(fixture, directory)

    def open(self, fixture: CorpusFixture, directory: Path) -> SystemUnderTest:
        check_owner(directory, self.spec, self.option)
        return self.inner.open(fixture, directory)

    def close(self) -> None:
        self.inner.close()
