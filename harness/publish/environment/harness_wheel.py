"""The harness wheel that made the runs, for the bundle's `environment/`.

An installed harness is identified by its RECORD's files (`harness.record_files`), and a reader who installs a wheel
with exactly those files gets a harness of the same identity, which the validator beside it checks. The wheel the
installer recorded (direct_url.json names it, with its sha256) is carried when it is still there with those bytes;
otherwise the installed files are packed again into a wheel of the same files (each re-hashed against RECORD, so a
file changed since install refuses the bundle). Either way the wheel's files must be the ones the receipts bind.
A clone or an editable install has no wheel: the receipts bind its git commit, and the reader checks out that
commit instead.
"""

import csv
import hashlib
import json
import zipfile
from importlib import metadata
from io import BytesIO, StringIO
from pathlib import Path
from urllib.parse import unquote, urlparse

from harness.atomic import write_file
from harness.hashing import sha256_bytes, sha256_canonical
from harness.publish.environment.refused import EnvironmentRefused
from harness.record_files import files_identity, is_install_specific, record_digest

ENVIRONMENT_DIR = "environment"
ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed, so the same files always pack into the same bytes


def _recorded_wheel(distribution: metadata.Distribution) -> bytes | None:
    """The wheel file direct_url.json names, when it still holds the bytes the installer hashed."""
    try:
        origin = json.loads(distribution.read_text("direct_url.json") or "null")
        url, wanted = origin["url"], origin["archive_info"]["hashes"]["sha256"]
    except (ValueError, KeyError, TypeError):
        return None
    parsed = urlparse(url)
    path = Path(unquote(parsed.path))
    if parsed.scheme != "file" or path.suffix != ".whl" or not path.is_file():
        return None
    data = path.read_bytes()
    return data if hashlib.sha256(data).hexdigest() == wanted else None


def _tags(distribution: metadata.Distribution) -> str:
    tags = [line.partition(":")[2].strip() for line in (distribution.read_text("WHEEL") or "").splitlines()
            if line.startswith("Tag:")]
    return tags[0] if len(tags) == 1 else "py3-none-any"


def wheel_name(distribution: metadata.Distribution) -> str:
    name = str(distribution.metadata["Name"]).replace("-", "_").lower()
    return f"{name}-{distribution.version}-{_tags(distribution)}.whl"


def _repacked(distribution: metadata.Distribution) -> bytes:
    """The installed files RECORD lists (the installer's own left out), each held to its RECORD digest, as a wheel."""
    record_name = next((str(f) for f in distribution.files or () if str(f).endswith(".dist-info/RECORD")), None)
    if record_name is None:
        raise EnvironmentRefused("the installed harness has no RECORD: install it from a wheel (pip install, not "
                                 "editable)")
    rows: list[list[str]] = []
    buffer = BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as wheel:
        for row in csv.reader((distribution.read_text("RECORD") or "").splitlines()):
            declared = record_digest(row[1]) if len(row) > 1 and row[0] else None
            if declared is None or is_install_specific(row[0]):
                continue
            data = Path(str(distribution.locate_file(row[0]))).read_bytes()
            if sha256_bytes(data) != declared:
                raise EnvironmentRefused(f"the installed harness's file {row[0]} differs from its RECORD: reinstall "
                                         "the wheel (pip install --force-reinstall) and bundle from runs it made")
            wheel.writestr(zipfile.ZipInfo(row[0], ZIP_DATE), data)
            rows.append(row)
        rows.append([record_name, "", ""])
        listing = StringIO()
        csv.writer(listing, lineterminator="\n").writerows(rows)
        wheel.writestr(zipfile.ZipInfo(record_name, ZIP_DATE), listing.getvalue())
    return buffer.getvalue()


def wheel_files_sha256(data: bytes) -> str:
    """The identity a wheel's files give its install: its RECORD's, by the harness's rule."""
    with zipfile.ZipFile(BytesIO(data)) as wheel:
        record = next(name for name in wheel.namelist() if name.endswith(".dist-info/RECORD"))
        return sha256_canonical(files_identity(wheel.read(record).decode("utf-8")))


def stage_harness_wheel(staging: Path, distribution: metadata.Distribution, files_sha256: str) -> Path:
    """Write the wheel whose files are the installed harness's into staging/environment/; refused unless they are
    the files the receipts bind (`files_sha256`)."""
    data = _recorded_wheel(distribution) or _repacked(distribution)
    found = wheel_files_sha256(data)
    if found != files_sha256:
        raise EnvironmentRefused(f"the installed harness's files ({found}) are not the ones the receipts bind "
                          f"({files_sha256}): bundle with the harness that made the runs installed")
    target = staging / ENVIRONMENT_DIR / wheel_name(distribution)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_file(target, data)
    return target
