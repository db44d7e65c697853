"""The bundle's own writings hold no absolute local path: in CLAIMS.md, the reports, the exports, the validation
reports, fixture-metadata.json, environment.json and system-source.json, each local directory the run or the bundle
used is written relative to the bundle (a file in it) or in words ("[the run's store]"), and the home directory as
`~`. The receipts, rows, comparisons, freeze record, system source and the carried fixture and stores
(`artifacts/`, `freeze.json`, `system-source/`, `inputs/`) are published byte for byte, since their digests bind
them; they name no local place (the run writes where it kept each thing into the output directory's locations.json,
which is never published: here it says which places the bundle's own writings may name)."""

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.atomic import write_text_file
from harness.evaluation.receipts.locations import ARCHIVES, FIXTURES, INTERPRETERS, SOURCES, STORES, hinted

SIGNED = ("artifacts/", "freeze.json", "system-source/", "inputs/")  # bound by digest: published as the run wrote them
TEXT = {".json", ".md", ".html", ".csv", ".tsv", ".tex", ".run", ".txt", ".qrels"}
HARNESS_ROOT = Path(__file__).resolve().parents[2]
ARCHIVE_VARIABLE = "SCIFACT_ARCHIVE"


def _add(places: dict[str, str], path: Any, words: str) -> None:
    if isinstance(path, str) and os.path.isabs(path) and path not in ("/", ""):
        places.setdefault(path.rstrip("/"), words)


def local_places(staging: Path, output_dir: Path, receipts: Sequence[dict[str, Any]],
                 archive: Path | None = None) -> list[tuple[str, str]]:
    """Each local directory the bundle's writings may name, longest first, with what it is written as: the dataset's
    archive too, the one given to `bundle`, placed by the run, or $SCIFACT_ARCHIVE (the validator may have re-derived
    from any of them, and its notes name the file)."""
    places: dict[str, str] = {}
    archives = [archive, os.environ.get(ARCHIVE_VARIABLE) or None,
                *(hinted(output_dir, ARCHIVES, document["receipt"]["corpus"]["source"].get("archive_sha256"))
                  for document in receipts)]
    for found in archives:
        if found is not None:
            for path in {Path(found).absolute(), Path(found).resolve()}:
                _add(places, str(path.parent), "[the archive's directory]")
    _add(places, str(staging) + "/", "")
    _add(places, str(staging), "[the bundle]")
    _add(places, str(output_dir.absolute()), "[the run's output directory]")
    _add(places, str(output_dir.resolve()), "[the run's output directory]")
    for document in receipts:
        receipt = document["receipt"]
        for kind, digest, words, parent in (
                (STORES, receipt["store"].get("store_sha256"), "[the run's store]", False),
                (FIXTURES, receipt["corpus"]["fixture_sha256"], "[the run's fixture directory]", True),
                (SOURCES, receipt["system"]["source"]["sha256"], "[the system's source root]", False),
                (INTERPRETERS, receipt["executable"]["interpreter_sha256"], "[the interpreter's directory]", True)):
            place = hinted(output_dir, kind, digest)
            if place is not None:
                _add(places, str(place.parent if parent else place), words)
    _add(places, str(HARNESS_ROOT), "[the harness's source]")
    _add(places, str(Path.home()), "~")
    return sorted(places.items(), key=lambda item: -len(item[0]))


def written_in_words(staging: Path, places: Sequence[tuple[str, str]]) -> None:
    """Every local path in the bundle's own text files replaced by its place (signed files left as they are)."""
    for path in sorted(staging.rglob("*")):
        name = path.relative_to(staging).as_posix()
        if not path.is_file() or name.startswith(SIGNED) or path.suffix not in TEXT:
            continue
        text = original = path.read_text(encoding="utf-8")
        for prefix, words in places:
            text = text.replace(prefix, words)
        if text != original:
            write_text_file(path, text)


def where_it_ran(machine: dict[str, Any]) -> str:
    """The machine block's place, in words: no host name or path, what kind of machine."""
    return (f"a {machine.get('machine', 'unknown')} machine ({machine.get('cpu_model', 'unknown CPU')}, "
            f"{machine.get('logical_cores', '?')} logical cores) running {machine.get('os', 'an unknown system')}")
