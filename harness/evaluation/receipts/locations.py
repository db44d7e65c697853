"""`locations.json`: where this machine keeps what an output directory's receipts bind by digest.

A receipt and a freeze record name no local place. The fixture is named by its file name and sha256, the store by
its directory's name and digests, the system's source by its root directory's name and digest, the interpreter by
its file name and sha256, the dataset's archive by the sha256 the fixture declares. The run ledger is `ledger.file`
inside the store, the freeze record `freeze.file` beside the aggregate in the output directory.

So that the machine that ran still finds them without flags, `run` and `freeze` write this sidecar into the output
directory: for each kind, digest -> the absolute path it had here (entries of earlier runs kept). It is local: bound
by no digest, never copied into a bundle nor listed in its MANIFEST, and only a hint. Whoever reads it (`harness
replay`, the bundle, the validator, each with its own reading) holds what it finds there to the receipt's digests,
and a place given on the command line (--fixture, --store-dir, --system-path) comes first.
"""

import json
import os
import sys
from pathlib import Path
from typing import Any

from harness.atomic import write_bytes_atomic
from harness.fixture.corpus_fixture import CorpusFixture
from harness.hashing import sha256_file
from harness.locks import file_lock
from harness.systems.protocol import SystemUnderTest

LOCATIONS_NAME = "locations.json"
LOCK_NAME = ".locations.lock"
SCHEMA = "scifact-locations-v1"
FIXTURES, STORES, SOURCES, INTERPRETERS, ARCHIVES = "fixtures", "stores", "system_sources", "interpreters", "archives"
MODELS = "models"  # a model of one's own, by the digest of its files (`build` places it beside the fixture)
KINDS = (FIXTURES, STORES, SOURCES, INTERPRETERS, ARCHIVES, MODELS)
ABOUT = ("where this machine keeps what the receipts beside this file bind by digest (digest -> absolute path); local "
         "and unbound: never published, and read only as a hint that the digests then check")


def found_here(fixture: CorpusFixture, system: SystemUnderTest,
               interpreter_sha256: str | None = None) -> dict[str, dict[str, str]]:
    """The places of what a run or a freeze binds: fixture, store, system source and, for a run, the interpreter."""
    identity = system.identity()
    found = {FIXTURES: {fixture.sha256: os.path.abspath(fixture.path)},
             STORES: {system.sha256: os.path.abspath(system.state_directory)},
             SOURCES: {identity.source_sha256: os.path.abspath(identity.source["root"])}}
    if interpreter_sha256 is not None:
        found[INTERPRETERS] = {interpreter_sha256: str(Path(sys.executable).resolve())}
    return found | model_found(fixture)


def model_found(fixture: CorpusFixture) -> dict[str, dict[str, str]]:
    """The place of the fixture's model of one's own, as `build` placed it beside the fixture (nothing for the
    packaged model, which every verifier installs, or for a model no longer there)."""
    identity = fixture.data["embedding"]["identity"]
    digest = identity.get("model_files_sha256")
    place = _read(fixture.path.parent / LOCATIONS_NAME).get(MODELS, {}).get(digest) if "files" in identity else None
    return {MODELS: {digest: place}} if place is not None and os.path.isdir(place) else {}


def archive_found(declared: str | None, archive: Path | None) -> dict[str, dict[str, str]]:
    """The dataset's archive placed by the sha256 a fixture declares, when `archive` is that file (an archive of other
    bytes places nothing: the validator, named it, refuses it)."""
    if declared is None or archive is None or not archive.is_file() or sha256_file(archive) != declared:
        return {}
    return {ARCHIVES: {declared: os.path.abspath(archive)}}


def place_archive(output_dir: Path, fixture: CorpusFixture, archive: Path | None) -> Path | None:
    """Place the dataset's `archive` in OUTPUT/locations.json for every later validation (compare, report, export,
    bundle find it there, as the validator does), and return what a validation now is to be named: None once placed,
    else the archive itself (None, or one of other bytes, which the validator named then refuses)."""
    found = archive_found((fixture.data.get("source") or {}).get("archive_sha256"), archive)
    if not found:
        return archive
    record_locations(output_dir, found)
    return None


def _read(path: Path) -> dict[str, dict[str, str]]:
    """The sidecar's entries; one unreadable or of another shape is a hint lost, never an error."""
    try:
        value: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(value, dict):
        return {}
    return {kind: {str(k): v for k, v in value[kind].items() if isinstance(v, str) and os.path.isabs(v)}
            for kind in KINDS if isinstance(value.get(kind), dict)}


def record_locations(output_dir: Path, found: dict[str, dict[str, str]]) -> None:
    """Merge `found` into OUTPUT/locations.json (one writer at a time; the file replaced whole)."""
    path = output_dir / LOCATIONS_NAME
    with file_lock(output_dir / LOCK_NAME, f"the output directory's {LOCATIONS_NAME}"):
        entries = _read(path)
        for kind, places in found.items():
            entries.setdefault(kind, {}).update(places)
        document = {"schema": SCHEMA, "about": ABOUT, **{kind: dict(sorted(entries.get(kind, {}).items()))
                                                         for kind in KINDS}}
        write_bytes_atomic(path, json.dumps(document, indent=1, ensure_ascii=False).encode("utf-8") + b"\n")


def hinted(output_dir: Path, kind: str, digest: str | None) -> Path | None:
    """Where OUTPUT/locations.json says the thing of `kind` with `digest` lies, if it says so; unchecked."""
    if digest is None:
        return None
    place = _read(output_dir / LOCATIONS_NAME).get(kind, {}).get(digest)
    return Path(place) if place is not None else None


def place_model(fixture_directory: Path, embedder: Any) -> None:
    """Place a local model of one's own beside the fixture `build` wrote (FIXTURE_DIR/locations.json), by the
    digest of its files, for `run` and `freeze` to carry into their output directory and the validator to find."""
    identity = embedder.identity()
    directory = getattr(embedder, "model_dir", None)
    if "files" in identity and directory is not None:
        record_locations(fixture_directory, {MODELS: {identity["model_files_sha256"]: os.path.abspath(directory)}})
