"""A distribution's files as its installer recorded them (RECORD: every installed file with its sha256), and the one
digest of them two installs of the same wheel share: the harness's own identity when installed, and every
distribution a system's process loads."""

import base64
import csv

from harness.hashing import sha256_canonical

# Written by the installer for this one install (the scripts' interpreter line, the installer's name, where it came
# from): left out of the identity two installs of one wheel share.
INSTALL_SPECIFIC = ("INSTALLER", "REQUESTED", "direct_url.json", "RECORD")
RULE = ("sha256 of canonical JSON {RECORD path: sha256} over RECORD's hashed entries, without the installer's own "
        "(paths outside site-packages, .dist-info/INSTALLER, REQUESTED, direct_url.json)")


def record_digest(value: str) -> str | None:
    """RECORD's `sha256=<urlsafe base64, no padding>` as the project's `sha256:<hex>`; None for another algorithm."""
    algorithm, _, encoded = value.partition("=")
    if algorithm != "sha256" or not encoded:
        return None
    return "sha256:" + base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).hex()


def is_install_specific(path: str) -> bool:
    return path.startswith("../") or (".dist-info/" in path and path.rsplit("/", 1)[-1] in INSTALL_SPECIFIC)


def hashed_entries(record: str) -> list[tuple[str, str]]:
    """Every RECORD entry with a sha256, as (path as written, its digest)."""
    entries = []
    for row in csv.reader(record.splitlines()):
        declared = record_digest(row[1]) if len(row) > 1 and row[0] else None
        if declared is not None:
            entries.append((row[0], declared))
    return entries


def files_identity(record: str) -> dict[str, str]:
    """{RECORD path: sha256} of the entries two installs of the same wheel share."""
    return {path: digest for path, digest in hashed_entries(record) if not is_install_specific(path)}


def files_sha256(record: str) -> str:
    return sha256_canonical(files_identity(record))
