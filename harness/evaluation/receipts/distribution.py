"""The harness as an installed distribution: its name, version and the files its installer recorded.

A wheel (or an sdist built into one) installed the usual way writes RECORD: every installed file with its sha256.
That list, checked against the files on disk, identifies the harness the way a clean git commit does for a clone.
An editable install or a clone records no harness files in RECORD; it is identified by git instead.
"""

import base64
import csv
import hashlib
from importlib import metadata
from pathlib import Path
from typing import Any

from harness.hashing import sha256_canonical
from harness.source_digest import PACKAGE_ROOT

NAME = "scifact-harness"
# Written by the installer for this one install (the scripts' interpreter line, the installer's name, where it came
# from): checked on disk like every other file, but left out of the identity two installs of one wheel share.
INSTALL_SPECIFIC = ("INSTALLER", "REQUESTED", "direct_url.json", "RECORD")
RULE = ("sha256 of canonical JSON {RECORD path: sha256} over RECORD's hashed entries, without the installer's own "
        "(paths outside site-packages, .dist-info/INSTALLER, REQUESTED, direct_url.json)")


def _file_sha256(path: Path) -> str | None:
    try:
        return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _record_digest(value: str) -> str | None:
    """RECORD's `sha256=<urlsafe base64, no padding>` as the project's `sha256:<hex>`; None for another algorithm."""
    algorithm, _, encoded = value.partition("=")
    if algorithm != "sha256" or not encoded:
        return None
    return "sha256:" + base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).hex()


def _is_install_specific(path: str) -> bool:
    return path.startswith("../") or (".dist-info/" in path and path.rsplit("/", 1)[-1] in INSTALL_SPECIFIC)


def _ours(distribution: metadata.Distribution, package_root: Path) -> bool:
    """Installed (an egg-info a build leaves in a clone lists sources but has no RECORD) and holding this harness."""
    if distribution.read_text("RECORD") is None:
        return False
    located = Path(str(distribution.locate_file("harness/__init__.py")))
    listed = any(str(entry) == "harness/__init__.py" for entry in distribution.files or ())
    return listed and located.resolve() == (package_root / "__init__.py").resolve()


def find(package_root: Path = PACKAGE_ROOT) -> metadata.Distribution | None:
    """The installed distribution whose RECORD holds the harness package at `package_root`, if any."""
    for distribution in metadata.distributions(name=NAME):
        if _ours(distribution, package_root):
            return distribution
    return None


def installed(package_root: Path = PACKAGE_ROOT) -> dict[str, Any]:
    """The distribution's identity and what differs on disk from its RECORD, or why there is none."""
    distribution = find(package_root)
    if distribution is None:
        return {"available": False, "reason": f"the harness is not an installed {NAME} distribution (a clone or an "
                                              "editable install: identified by git)"}
    record = distribution.read_text("RECORD") or ""
    identity: dict[str, str] = {}
    changed: list[str] = []
    for row in csv.reader(record.splitlines()):
        if not row or not row[0]:
            continue
        declared = _record_digest(row[1]) if len(row) > 1 else None
        if declared is None:
            continue
        found = _file_sha256(Path(str(distribution.locate_file(row[0]))))
        if found != declared:
            changed.append(row[0] if found is not None else f"{row[0]} (missing)")
        if not _is_install_specific(row[0]):
            identity[row[0]] = declared
    return {"available": True, "name": distribution.metadata["Name"], "version": distribution.version,
            "files": len(identity), "files_sha256": sha256_canonical(identity), "rule": RULE,
            "changed": sorted(changed)}


def summary(state: dict[str, Any]) -> str:
    return f"{state['name']} {state['version']} (files {state['files_sha256']})"
