"""The bundle's inputs: the fixture and the stores its runs read, carried under `inputs/` so that a reader on another
machine validates from the bundle and the public archive alone.

- `inputs/fixture/`: the fixture JSON and its vectors sidecar (the file its `vectors.file` names) of the bundle's own
  run, once. Each run's receipts name one fixture, by sha256.
- `inputs/runs/NAME/fixture/`: the same for the run `artifacts/runs/NAME/` of a comparison between systems that read
  another fixture than the bundle's own run (one of the same dataset content, with another embedding or text profile:
  the validator holds it to that).
- `inputs/store/`: the store of the bundle's own run: the built-in system's `store.json` and every part it lists, or
  a system of its own's parts at their places under its store directory; with the run ledger, `ledger.sqlite3`.
- `inputs/runs/NAME/store/`: the same for the run `artifacts/runs/NAME/` of a comparison between systems, unless that
  run used the bundle's own store (then `inputs/store/` is its store).

The receipts name the fixture and stores by digest, never by place: each is found where its run's output directory's
`locations.json` places it (for a run of a comparison between systems, the output directory the comparison names).
Each file is read once and held to the digest the receipts bind before it is written (the fixture's and its vectors'
sha256, each store part's sha256, a directory part by its tree digest); one that is not refuses the bundle, naming
it. The run ledger is bound by no digest: its chain is checked by the validator, the order of runs stays the
publisher's word. Nothing here makes the carried vectors trustworthy: the reader's re-embedding of every text does.
"""

import json
import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from harness.evaluation.receipts.locations import FIXTURES, LOCATIONS_NAME, STORES, hinted
from harness.publish.bundle_error import BundleError
from harness.publish.bundle_parts import Writes, checked, write_files

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
    home: Path  # the output directory it ran into, whose locations.json places its fixture and store


def _homes(staging: Path, output_dir: Path) -> dict[str, Path]:
    """Each run of a staged comparison between systems -> the output directory it ran into (as the comparison names
    it, relative to the bundled output directory)."""
    homes: dict[str, Path] = {}
    for path in sorted((staging / "artifacts").glob("*-systems-*.json")):
        for run in json.loads(path.read_bytes())["runs"]:
            home = Path(os.path.normpath(output_dir / run["output_dir"]))
            if homes.setdefault(run["name"], home) != home:
                raise BundleError(f"the comparisons between systems name two runs {run['name']!r} "
                                  f"({homes[run['name']]} and {home}); a bundle carries one store per run name: "
                                  "compare again with one name for each output directory")
    return homes


def _runs(staging: Path, output_dir: Path) -> list[Run]:
    artifacts = staging / "artifacts"
    homes = _homes(staging, output_dir)
    own = Run(None, [], output_dir)
    named: dict[str, Run] = {}
    for path in sorted(artifacts.rglob("*.aggregate.json")):
        relative = path.relative_to(artifacts).parts
        if len(relative) not in (1, 3) or (len(relative) == 3 and relative[0] != "runs"):
            continue
        run = own if len(relative) == 1 else named.setdefault(
            relative[1], Run(relative[1], [], homes.get(relative[1], output_dir)))
        run.receipts.append((path.relative_to(staging).as_posix(), json.loads(path.read_bytes())["receipt"]))
    return [own, *named.values()] if own.receipts else list(named.values())


def _placed(home: Path, kind: str, digest: str, what: str) -> Path:
    """Where the output directory's locations.json places `what` (checked against the digest when read)."""
    place = hinted(home, kind, digest)
    if place is None:
        raise BundleError(f"{home / LOCATIONS_NAME} does not place {what} ({digest}) the receipts name by digest: "
                          "bundle on the machine that ran, from the output directory the run wrote")
    return place


def _one_fixture(run: Run, runs: Sequence[Run]) -> tuple[dict[str, Any], Path]:
    """The corpus block every receipt of `run` shares (by fixture sha256), else refused naming two that differ; with
    where it lies (where the run's output directory places it, else the first other run's that does)."""
    first_path, first = run.receipts[0]
    for path, receipt in run.receipts:
        if receipt["corpus"]["fixture_sha256"] != first["corpus"]["fixture_sha256"]:
            raise BundleError(
                f"{first_path} read the fixture {first['corpus']['fixture_sha256']} and {path} read "
                f"{receipt['corpus']['fixture_sha256']}, but they are one run's receipts, and a run reads one fixture: "
                "bundle the output directory of one evaluation as it was run")
    corpus: dict[str, Any] = first["corpus"]
    places = [hinted(home.home, FIXTURES, corpus["fixture_sha256"]) for home in (run, *runs)]
    return corpus, next((place for place in places if place is not None), None) or _placed(
        run.home, FIXTURES, corpus["fixture_sha256"], f"the fixture {corpus['fixture_file']}")


def _fixtures(staging: Path, runs: Sequence[Run]) -> Writes:
    """The first run's fixture (the bundle's own run's, when it has one) under inputs/fixture/; the fixture of each
    other run that read another one under inputs/runs/NAME/fixture/."""
    first, path = _one_fixture(runs[0], runs)
    writes = _fixture(staging / FIXTURE_DIR, first, path)
    for run in runs[1:]:
        corpus, path = _one_fixture(run, runs)
        if corpus["fixture_sha256"] != first["fixture_sha256"]:
            writes += _fixture(staging / RUNS / str(run.name) / "fixture", corpus, path)
    return writes


def _fixture(target: Path, corpus: dict[str, Any], path: Path) -> Writes:
    fix = f"restore the fixture {path} and its vectors as the runs read them (or build it again), then bundle again"
    data = checked(path, corpus["fixture_sha256"], "the fixture", fix)
    vectors = json.loads(data[""])["vectors"]
    name = PurePosixPath(str(vectors["file"]))
    if len(name.parts) != 1 or name.name in ("", ".", "..") or name.name == path.name:
        raise BundleError(f"the fixture {path} names the vectors file {vectors['file']!r}, which is no file beside "
                          f"it; {fix}")
    if vectors["sha256"] != corpus["vectors_sha256"]:
        raise BundleError(f"the fixture {path} states vectors {vectors['sha256']}, the receipts "
                          f"{corpus['vectors_sha256']}; {fix}")
    sidecar = checked(path.parent / name.name, corpus["vectors_sha256"], "the fixture's vectors", fix)
    return [(target / path.name, data), (target / name.name, sidecar)]


def _one_store(run: Run) -> dict[str, Any]:
    first_path, first = run.receipts[0]
    for path, receipt in run.receipts:
        if receipt["store"]["store_sha256"] != first["store"]["store_sha256"]:
            raise BundleError(f"{first_path} and {path} are one run's receipts but name two stores "
                              f"({first['store']['store_sha256']} and {receipt['store']['store_sha256']}); a run is "
                              "made with one store: bundle the output directory of one evaluation as it was run")
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


def _store(staging: Path, run: Run, target: str) -> tuple[Writes, tuple[Path, Path]]:
    """What to write for one run's store, and its run ledger (from, to)."""
    store = _one_store(run)
    directory = _placed(run.home, STORES, store["store_sha256"], f"the store {store['directory_name']}")
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
    read = {path: checked(directory / path, digest, f"the store part {name!r}", fix)
            for path, (name, digest) in sorted(parts.items())}
    writes = [(staging / target / path if path != "." else staging / target, files) for path, files in read.items()]
    if manifest is not None:
        writes.append((staging / target / STORE_MANIFEST, {"": manifest}))
    ledger = str(run.receipts[0][1]["ledger"]["file"])
    return writes, (directory / ledger, staging / target / LEDGER)


def stage_inputs(staging: Path, output_dir: Path) -> None:
    """Copy into `staging` the fixture and the store of every run whose aggregates are staged under `artifacts/`
    (found where each run's output directory's locations.json places them; `output_dir`: the bundled one), each held
    to the receipts' digests; refused, naming the file and the fix, when any is not, before anything is written."""
    runs = _runs(staging, output_dir)
    if not runs:
        return
    writes = _fixtures(staging, runs)
    ledgers = []
    own_store = _one_store(runs[0]) if runs[0].name is None else None
    for run in runs:
        if run.name is not None and own_store is not None and (
                _one_store(run)["store_sha256"] == own_store["store_sha256"]):
            continue  # the bundle's own store, carried once under inputs/store/
        staged, ledger = _store(staging, run, OWN_STORE if run.name is None else f"{RUNS}/{run.name}/store")
        writes += staged
        ledgers.append(ledger)
    for target, files in writes:
        write_files(target, files)
    for source, ledger_target in ledgers:
        _copy_ledger(source, ledger_target)
