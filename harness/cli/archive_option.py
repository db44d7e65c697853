"""`--archive ZIP` of compare, report, export and bundle: the dataset's archive placed, by the digest the runs
declare, in each output directory's locations.json, where every later validation (and the validator on its own)
finds it, as `run` leaves it. A collection of one's own is re-derived from it; a zip that no run there was built from
is refused, naming both digests."""

import json
import os
from collections.abc import Iterable
from pathlib import Path

from harness.cli.parsing.paths import PathArgumentError, input_file
from harness.evaluation.receipts.locations import ARCHIVES, record_locations
from harness.hashing import sha256_file


def declared_archives(output_dir: Path) -> set[str]:
    """The archive digests the fixtures of `output_dir`'s runs declare, from their receipts."""
    found = set()
    for aggregate in sorted(output_dir.glob("*.aggregate.json")):
        try:
            declared = json.loads(aggregate.read_bytes())["receipt"]["corpus"]["source"]["archive_sha256"]
        except (OSError, ValueError, KeyError, TypeError):
            continue  # the validator names what is wrong with such an aggregate
        if isinstance(declared, str):
            found.add(declared)
    return found


def place_archive_option(archive: Path | None, output_dirs: Iterable[Path]) -> None:
    """Place `archive` (--archive) in each output directory whose runs declare it; refused when none does."""
    if archive is None:
        return
    input_file("--archive", archive, "pass the dataset's zip")
    digest, directories = sha256_file(archive), list(dict.fromkeys(output_dirs))
    declared: set[str] = set()
    for directory in directories:
        wanted = declared_archives(directory)
        declared |= wanted
        if digest in wanted:
            record_locations(directory, {ARCHIVES: {digest: os.path.abspath(archive)}})
    if digest not in declared:
        named = ", ".join(sorted(declared)) or "no archive (no aggregate there)"
        raise PathArgumentError(f"--archive {archive} has sha256 {digest}, and the runs in "
                                f"{', '.join(map(str, directories))} were built from {named}: pass the archive their "
                                "fixture was built from (a collection's own zip lies beside its contract)")
