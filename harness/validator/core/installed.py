"""The harness beside this validator as an installed distribution: every file its RECORD lists, hashed here.

Re-implemented from the rule the receipts state (not imported from the producer): the identity is the sha256 of
canonical JSON {RECORD path: sha256} over RECORD's hashed entries, leaving out the installer's own (paths outside
site-packages, .dist-info/INSTALLER, REQUESTED, direct_url.json, RECORD).
"""

import base64
import csv
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from .digests import sha256_canonical, sha256_file
from .source_tree import HARNESS_DIR

NAME = "scifact-harness"
INSTALLER_FILES = {"INSTALLER", "REQUESTED", "direct_url.json", "RECORD"}


@dataclass(frozen=True)
class Installed:
    name: str
    version: str
    files_sha256: str
    changed: list[str]  # RECORD paths whose bytes here are not RECORD's (or that are missing)


def _from_record(value: str) -> str | None:
    algorithm, _, encoded = value.partition("=")
    if algorithm != "sha256" or not encoded:
        return None
    return "sha256:" + base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).hex()


def _holds_this_harness(distribution: metadata.Distribution) -> bool:
    if distribution.read_text("RECORD") is None:  # not installed: an egg-info a build left in a clone, say
        return False
    if not any(str(entry) == "harness/__init__.py" for entry in distribution.files or ()):
        return False
    return Path(str(distribution.locate_file("harness/__init__.py"))).resolve() == HARNESS_DIR / "__init__.py"


def installed_here() -> Installed | None:
    """The distribution whose RECORD installed the harness beside this validator; None for a clone or editable."""
    for distribution in metadata.distributions(name=NAME):
        if _holds_this_harness(distribution):
            return _checked(distribution)
    return None


def _checked(distribution: metadata.Distribution) -> Installed:
    identity: dict[str, str] = {}
    changed: list[str] = []
    for row in csv.reader((distribution.read_text("RECORD") or "").splitlines()):
        recorded = _from_record(row[1]) if len(row) > 1 else None
        if recorded is None:
            continue
        path = Path(str(distribution.locate_file(row[0])))
        if not path.is_file():
            changed.append(f"{row[0]} (missing)")
        elif sha256_file(path) != recorded:
            changed.append(row[0])
        outside = row[0].startswith("../")
        if not outside and not (".dist-info/" in row[0] and row[0].rsplit("/", 1)[-1] in INSTALLER_FILES):
            identity[row[0]] = recorded
    return Installed(name=distribution.metadata["Name"], version=distribution.version,
                     files_sha256=sha256_canonical(identity), changed=sorted(changed))
