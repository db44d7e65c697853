"""Everything one validation reads: the aggregate, its rows, the fixture, the freeze record, and where the fixture
and store are (the options given, else the output directory's locations.json: `locations`)."""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .digests import sha256_bytes
from .locations import FIXTURES, SOURCES, STORES, Places, read_places
from .reading import is_file
from .strict_json import StrictJSONError, load_lines, loads


class InputError(Exception):
    """An input the validator was pointed at is missing, unreadable or not of its kind."""


FIXES = {"aggregate": "name the .aggregate.json file `python -m harness run` wrote",
         "rows": "name the rows (.jsonl) the run wrote, after their AGGREGATE",
         "fixture": "pass the fixture `python -m harness build` wrote (--fixture), or build it again",
         "freeze record": "pass the freeze.json `python -m harness freeze` wrote (--freeze)"}


@dataclass
class Context:
    aggregate_path: Path
    aggregate: dict[str, Any]
    rows_path: Path
    rows: list[dict[str, Any]]
    fixture_path: Path | None
    fixture: dict[str, Any] | None
    freeze_path: Path | None
    freeze: dict[str, Any] | None
    store_dir: Path | None = None  # the live store: --store-dir, else where locations.json places it; else None
    fixture_sha256: str | None = None  # the digest of the very bytes `fixture` was parsed from
    places: Places = field(default_factory=Places)
    fixture_given: bool = True  # --fixture named it (else the hint placed it, or nothing did)
    store_given: bool = True  # --store-dir named it
    system_path: Path | None = None  # --system-path (a bundle's system-source/): where the system's source is now

    @property
    def source_root(self) -> Path | None:
        """The system's source: --system-path if given, else where locations.json places its digest, else None."""
        if self.system_path is not None:
            return self.system_path
        return self.places.place(SOURCES, self.receipt["system"]["source"]["sha256"])

    def where(self, what: str, option: str, given: bool) -> str:
        """How the validator came to the fixture or store it reads, and the option that names another."""
        return f"named by {option}" if given else f"placed by {self.places.file} (a hint: pass {option} to name {what})"

    @property
    def receipt(self) -> dict[str, Any]:
        receipt: dict[str, Any] = self.aggregate["receipt"]
        return receipt

    @property
    def mode(self) -> str:
        return str(self.aggregate["mode"])

    @property
    def split(self) -> str:
        return str(self.aggregate["split"])


def _strict(path: Path, what: str) -> tuple[Any, str]:
    """The document and the sha256 of the bytes it was parsed from (one read)."""
    if not path.is_file():
        raise InputError(f"{what} {path} {'is a directory' if path.is_dir() else 'does not exist'}; {FIXES[what]}")
    data = path.read_bytes()
    try:
        return loads(data), sha256_bytes(data)
    except StrictJSONError as exc:
        raise StrictJSONError(f"{what} {path} is not strict JSON ({exc}); {FIXES[what]}") from exc


def _named(receipt: Any, section: str, key: str) -> str | None:
    """A string the receipt holds, when the receipt has that shape; a malformed receipt fails its schema check."""
    named = receipt.get(section) if isinstance(receipt, dict) else None
    value = named.get(key) if isinstance(named, dict) else None
    return value if isinstance(value, str) and value else None


def input_paths(aggregate_path: Path, aggregate: Any, rows_path: Path | None,
                freeze_path: Path | None) -> tuple[Path, Path | None]:
    """The rows and the freeze record of an aggregate: the ones given, else the ones it names."""
    named = aggregate.get("per_query_path", "") if isinstance(aggregate, dict) else ""
    rows = rows_path if rows_path is not None else aggregate_path.parent / str(named)
    receipt = aggregate.get("receipt") if isinstance(aggregate, dict) else None
    named_freeze = _named(receipt, "freeze", "file")  # the output directory's, beside the aggregate
    return rows, freeze_path or (aggregate_path.parent / Path(named_freeze).name if named_freeze else None)


def placed_inputs(receipt: Any, places: Places, fixture_path: Path | None,
                  store_dir: Path | None) -> tuple[Path | None, Path | None]:
    """The fixture and store a validation reads: the ones given, else where `places` puts the receipt's digests."""
    return (fixture_path or places.place(FIXTURES, _named(receipt, "corpus", "fixture_sha256")),
            store_dir or places.place(STORES, _named(receipt, "store", "store_sha256")))


def load(aggregate_path: Path, rows_path: Path | None, fixture_path: Path | None,
         freeze_path: Path | None, store_dir: Path | None = None, locations: Path | None = None,
         system_path: Path | None = None) -> Context:
    """`locations`: the directory whose locations.json places the fixture and store (None: the aggregate's own);
    `system_path`: where the system's source is now, when given (a bundle's system-source/)."""
    aggregate, _ = _strict(aggregate_path, "aggregate")
    if not isinstance(aggregate, dict) or not {"schema", "receipt"} & aggregate.keys():
        raise InputError(f"aggregate {aggregate_path} is not an aggregate (not a JSON object with its schema and "
                         f"receipt); {FIXES['aggregate']}")
    rows_path, freeze_path = input_paths(aggregate_path, aggregate, rows_path, freeze_path)
    if not is_file(rows_path):
        raise InputError(f"rows {rows_path} do not exist (the aggregate names {aggregate.get('per_query_path')!r}); "
                         f"{FIXES['rows']}")
    try:
        rows = load_lines(rows_path)
    except StrictJSONError as exc:
        raise StrictJSONError(f"rows are not strict JSON lines: {exc}; {FIXES['rows']}") from exc
    places = read_places(locations or aggregate_path.parent)
    fixture_given, store_given = fixture_path is not None, store_dir is not None
    fixture_path, store_dir = placed_inputs(aggregate.get("receipt"), places, fixture_path, store_dir)
    fixture, fixture_sha256 = (_strict(fixture_path, "fixture") if fixture_path is not None and is_file(fixture_path)
                               else (None, None))
    freeze = _strict(freeze_path, "freeze record")[0] if freeze_path is not None and is_file(freeze_path) else None
    return Context(aggregate_path, aggregate, rows_path, rows, fixture_path, fixture, freeze_path, freeze, store_dir,
                   fixture_sha256, places, fixture_given, store_given, system_path)
