"""A collection of one's own travels with its bundle: its archive, held to the sha256 its fixture declares, is carried
as `inputs/archive/NAME.zip`, so that its reader re-derives every document, query and judgement from the bundle
alone. A dataset the validator holds pins for (SciFact, the public BEIR sets) is public: its reader fetches the
publisher's archive and names it, as CLAIMS.md says."""

from pathlib import Path
from typing import Any

from harness.atomic import write_file
from harness.evaluation.receipts.locations import ARCHIVES, LOCATIONS_NAME, hinted
from harness.hashing import sha256_bytes
from harness.publish.bundle_error import BundleError
from harness.validator.dataset.pins import pins_for

ARCHIVE_DIR = "inputs/archive"


def is_own_collection(corpus: dict[str, Any]) -> bool:
    """Whether the receipts' contract is a collection of the publisher's own: the validator holds no pins for it."""
    return pins_for(corpus["contract"]["name"]) is None


def stage_archive(staging: Path, output_dir: Path, corpus: dict[str, Any], archive: Path | None) -> Path | None:
    """Copy a collection of one's own's archive (--archive, else where OUTPUT/locations.json places it) into the
    staging directory, checked against the fixture's declared sha256; the staged file, or None for a public dataset."""
    if not is_own_collection(corpus):
        return None
    name, declared = corpus["contract"]["name"], corpus["source"]["archive_sha256"]
    wanted = f"{corpus['contract']['namespace']}.zip"
    path = archive or hinted(output_dir, ARCHIVES, declared)
    if path is None:
        raise BundleError(f"{name!r} is a collection of your own, and the bundle carries its archive for its reader; "
                          f"{output_dir / LOCATIONS_NAME} does not place it (sha256 {declared}): pass --archive "
                          f"{wanted}, the zip its contract packed")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BundleError(f"the collection's archive {path} cannot be read ({exc.strerror or exc}): pass --archive "
                          f"{wanted}") from exc
    if sha256_bytes(data) != declared:
        raise BundleError(f"the archive {path} is not the one the fixture was built from (it declares {declared}; "
                          f"this file is {sha256_bytes(data)}): pass --archive {wanted}, the zip its contract packed")
    target = staging / ARCHIVE_DIR / wanted
    target.parent.mkdir(parents=True, exist_ok=True)
    write_file(target, data)
    return target
