"""The bundle's inputs: the fixture and the stores its runs read, carried under `inputs/` so that a reader on another
machine validates from the bundle and the public archive alone.

- `inputs/fixture/`: the fixture JSON and its vectors sidecar (the file its `vectors.file` names), once. Every run in
  the bundle (its own and each run of a comparison between systems) must have read the same fixture, by sha256.
- `inputs/store/`: the store of the bundle's own run: the built-in system's `store.json` and every part it lists, or
  a system of its own's parts at their places under its store directory; with the run ledger, `ledger.sqlite3`.
- `inputs/runs/NAME/store/`: the same for the run `artifacts/runs/NAME/` of a comparison between systems, unless that
  run used the bundle's own store (then `inputs/store/` is its store).

Each file is read once and held to the digest the receipts bind before it is written (the fixture's and its
vectors' sha256, each store part's sha256, a directory part by its tree digest); one that is not refuses the bundle,
naming it. The run ledger is bound by no digest: its events are chained and checked by the validator, and the order
of runs stays the publisher's word; it is copied as one self-contained SQLite file. Nothing here makes the carried
vectors trustworthy: the reader's re-embedding of every text does.
"""

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from harness.hashing import sha256_bytes, sha256_canonical
from harness.publish.bundle_error import BundleError

INPUTS = "inputs"
FIXTURE_DIR = "inputs/fixture"
OWN_STORE = "inputs/store"
RUNS = "inputs/runs"
STORE_MANIFEST = "store.json"
LEDGER = "ledger.sqlite3"
BUILTIN_PARTS = {"database": "database_sha256", "mapping": "mapping_sha256", "lexical": "lexical_sha256",
                 "dense": "dense_sha256"}


@dataclass(frozen=True)
class Run:
    name: str | None  # None: the bundle's own run
    receipts: list[tuple[str, dict[str, Any]]]  # (the aggregate's path in the bundle, its receipt)


def _read(path: Path) -> dict[str, bytes]:
    """A part's bytes, read once: a file as {"": bytes}, a directory as {relative path: bytes} of every file."""
    if path.is_file():
        return {"": path.read_bytes()}
    if path.is_dir():
        return {p.relative_to(path).as_posix(): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}
    raise FileNotFoundError(path)


def _digest(files: dict[str, bytes]) -> str:
    if list(files) == [""]:
        return sha256_bytes(files[""])
    return sha256_canonical({name: sha256_bytes(data) for name, data in files.items()})


def _write(target: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        path = target / name if name else target
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def _checked(source: Path, digest: str, what: str, fix: str) -> dict[str, bytes]:
    try:
        files = _read(source)
    except OSError as exc:
        raise BundleError(f"{what} {source} cannot be read ({getattr(exc, 'strerror', None) or exc}): the bundle "
                          f"carries it as the receipts bind it; {fix}") from exc
    found = _digest(files)
    if found != digest:
        raise BundleError(f"{what} {source} is not what the receipts bind (they bind {digest}; it is now {found}), so "
                          f"nothing was bundled; {fix}")
    return files


def _runs(staging: Path) -> list[Run]:
    artifacts = staging / "artifacts"
    own = Run(None, [])
    named: dict[str, Run] = {}
    for path in sorted(artifacts.rglob("*.aggregate.json")):
        relative = path.relative_to(artifacts).parts
        if len(relative) == 1:
            run = own
        elif len(relative) == 3 and relative[0] == "runs":
            run = named.setdefault(relative[1], Run(relative[1], []))
        else:
            continue
        run.receipts.append((path.relative_to(staging).as_posix(), json.loads(path.read_bytes())["receipt"]))
    return [own, *named.values()] if own.receipts else list(named.values())


def _one_fixture(runs: Sequence[Run]) -> dict[str, Any]:
    """The corpus block every receipt shares (by fixture sha256), else refused naming two that differ."""
    first_path, first = runs[0].receipts[0]
    for run in runs:
        for path, receipt in run.receipts:
            if receipt["corpus"]["fixture_sha256"] != first["corpus"]["fixture_sha256"]:
                raise BundleError(
                    f"{first_path} read the fixture {first['corpus']['fixture_sha256']} and {path} read "
                    f"{receipt['corpus']['fixture_sha256']}: a bundle carries one fixture, and a comparison between "
                    "systems compares runs of one fixture; compare (and bundle) runs made from the same fixture")
    corpus: dict[str, Any] = first["corpus"]
    return corpus


Writes = list[tuple[Path, dict[str, bytes]]]  # each target with the bytes read and checked for it


def _fixture(staging: Path, corpus: dict[str, Any]) -> Writes:
    path = Path(corpus["fixture_path"])
    fix = f"restore the fixture {path} and its vectors as the runs read them (or build it again), then bundle again"
    data = _checked(path, corpus["fixture_sha256"], "the fixture", fix)
    vectors = json.loads(data[""])["vectors"]
    name = PurePosixPath(str(vectors["file"]))
    if len(name.parts) != 1 or name.name in ("", ".", "..") or name.name == path.name:
        raise BundleError(f"the fixture {path} names the vectors file {vectors['file']!r}, which is no file beside "
                          f"it; {fix}")
    if vectors["sha256"] != corpus["vectors_sha256"]:
        raise BundleError(f"the fixture {path} states vectors {vectors['sha256']}, the receipts "
                          f"{corpus['vectors_sha256']}; {fix}")
    sidecar = _checked(path.parent / name.name, corpus["vectors_sha256"], "the fixture's vectors", fix)
    return [(staging / FIXTURE_DIR / path.name, data), (staging / FIXTURE_DIR / name.name, sidecar)]


def _one_store(run: Run) -> dict[str, Any]:
    first_path, first = run.receipts[0]
    for path, receipt in run.receipts:
        if (receipt["store"]["directory"], receipt["store"]["store_sha256"]) != (
                first["store"]["directory"], first["store"]["store_sha256"]):
            raise BundleError(f"{first_path} and {path} are one run's receipts but name two stores "
                              f"({first['store']['directory']} and {receipt['store']['directory']}); a run is made "
                              "with one store: bundle the output directory of one evaluation as it was run")
    store: dict[str, Any] = first["store"]
    return store


def _builtin_parts(directory: Path, store: dict[str, Any], manifest_bytes: bytes,
                   fix: str) -> dict[str, tuple[str, str]]:
    """The built-in system's store: {path under the store: (part name, digest)}, as its store.json lists them."""
    try:
        manifest = json.loads(manifest_bytes)
        listed = {name: (str(part["path"]), str(part["sha256"])) for name, part in manifest["parts"].items()}
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise BundleError(f"the store manifest {directory / STORE_MANIFEST} is not readable ({exc}); {fix}") from exc
    bound = {name: store[key] for name, key in BUILTIN_PARTS.items()}
    if {name: digest for name, (_, digest) in listed.items()} != bound:
        raise BundleError(f"the store manifest {directory / STORE_MANIFEST} lists parts {sorted(listed)} with digests "
                          f"other than the receipts bind ({bound}); {fix}")
    return {path: (name, digest) for name, (path, digest) in listed.items()}


def _system_parts(directory: Path, store: dict[str, Any], fix: str) -> dict[str, tuple[str, str]]:
    """A system of its own: each part at its place under the store directory."""
    parts = {}
    for name, part in store["parts"].items():
        path = directory / part["path"]
        if not path.is_relative_to(directory):
            raise BundleError(f"the system's part {name!r} lies at {path}, outside its store directory {directory}: "
                              "a bundle carries the store directory; keep every local part the system's parts() "
                              "names inside --store-dir, then evaluate the system again")
        parts[path.relative_to(directory).as_posix()] = (name, str(part["sha256"]))
    return parts


def _copy_ledger(source: Path, target: Path) -> None:
    """The run ledger as one file in rollback-journal mode, so a reader opens it read-only without writing beside it."""
    if not source.is_file():
        return  # the validator says what a missing ledger means
    target.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(source.resolve().as_uri() + "?mode=ro", uri=True) as reading, \
            sqlite3.connect(target) as writing:
        reading.backup(writing)
        writing.execute("PRAGMA journal_mode=DELETE")
    reading.close()
    writing.close()


def _store(staging: Path, store: dict[str, Any], target: str) -> tuple[Writes, tuple[Path, Path]]:
    """What to write for one store, and its run ledger (from, to)."""
    directory = Path(store["directory"])
    fix = (f"restore the store {directory} as the run left it, then bundle again (a store changed after its runs is "
           "evaluated anew: calibration, freeze and held-out in a new --store-dir and --output-dir)")
    manifest: bytes | None = None
    if "parts" not in store:  # the built-in system, whose store.json lists its parts
        try:
            manifest = (directory / STORE_MANIFEST).read_bytes()
        except OSError as exc:
            raise BundleError(f"the store manifest {directory / STORE_MANIFEST} cannot be read ({exc}); {fix}") from exc
    parts = (_system_parts(directory, store, fix) if manifest is None
             else _builtin_parts(directory, store, manifest, fix))
    read = {path: _checked(directory / path, digest, f"the store part {name!r}", fix)
            for path, (name, digest) in sorted(parts.items())}
    writes = [(staging / target / path if path != "." else staging / target, files) for path, files in read.items()]
    if manifest is not None:
        writes.append((staging / target / STORE_MANIFEST, {"": manifest}))
    return writes, (directory / LEDGER, staging / target / LEDGER)


def stage_inputs(staging: Path) -> None:
    """Copy into `staging` the fixture and the store of every run whose aggregates are staged under `artifacts/`,
    each held to the receipts' digests; refused, naming the file and the fix, when any is not, before anything is
    written."""
    runs = _runs(staging)
    if not runs:
        return
    writes = _fixture(staging, _one_fixture(runs))
    ledgers = []
    own_store = _one_store(runs[0]) if runs[0].name is None else None
    for run in runs:
        store = _one_store(run)
        if run.name is not None and own_store is not None and (store["directory"], store["store_sha256"]) == (
                own_store["directory"], own_store["store_sha256"]):
            continue  # the bundle's own store, carried once under inputs/store/
        staged, ledger = _store(staging, store, OWN_STORE if run.name is None else f"{RUNS}/{run.name}/store")
        writes += staged
        ledgers.append(ledger)
    for target, files in writes:
        _write(target, files)
    for source, target in ledgers:
        _copy_ledger(source, target)
