"""The harness as an installed distribution: its name, version and the files its installer recorded.

A wheel (or an sdist built into one) installed the usual way writes RECORD: every installed file with its sha256.
That list, checked against the files on disk, identifies the harness the way a clean git commit does for a clone.
An editable install or a clone records no harness files in RECORD; it is identified by git instead.
"""

import hashlib
from importlib import metadata
from pathlib import Path
from typing import Any

from harness.hashing import sha256_canonical
from harness.record_files import RULE, hashed_entries, is_install_specific
from harness.source_digest import PACKAGE_ROOT

NAME = "scifact-harness"


def _file_sha256(path: Path) -> str | None:
    try:
        return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


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
    identity: dict[str, str] = {}
    changed: list[str] = []
    for path, declared in hashed_entries(distribution.read_text("RECORD") or ""):
        found = _file_sha256(Path(str(distribution.locate_file(path))))
        if found != declared:
            changed.append(path if found is not None else f"{path} (missing)")
        if not is_install_specific(path):
            identity[path] = declared
    return {"available": True, "name": distribution.metadata["Name"], "version": distribution.version,
            "files": len(identity), "files_sha256": sha256_canonical(identity), "rule": RULE,
            "changed": sorted(changed)}


def summary(state: dict[str, Any]) -> str:
    return f"{state['name']} {state['version']} (files {state['files_sha256']})"
