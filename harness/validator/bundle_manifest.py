"""A bundle's MANIFEST.json held to the bundle's bytes: every file it lists present with its sha256, no file it does
not list, and its own digest of the list recomputed. Each problem names the file and the fix."""

import os
from pathlib import Path

from .core.digests import sha256_canonical, sha256_file
from .core.strict_json import StrictJSONError, load_file

MANIFEST = "MANIFEST.json"
REFETCH = "fetch the bundle again from its publisher (or ask them for the file as published)"


def bundle_files(bundle: Path) -> list[str]:
    """Every file under the bundle, by its path relative to it (symbolic links are listed, never followed)."""
    names = []
    for root, directories, files in os.walk(bundle):
        directories.sort()
        names += [Path(root, name).relative_to(bundle).as_posix() for name in files]
        names += [Path(root, name).relative_to(bundle).as_posix() for name in directories
                  if Path(root, name).is_symlink()]
    return sorted(names)


def manifest_problems(bundle: Path) -> list[str]:
    """What is wrong with the bundle against its MANIFEST.json; empty when every byte is the published one."""
    path = bundle / MANIFEST
    try:
        manifest = load_file(path)
    except (OSError, StrictJSONError) as exc:
        return [f"{MANIFEST} cannot be read ({exc}): without it no file of the bundle is held to its digest; {REFETCH}"]
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        return [f"{MANIFEST} has no 'files' object of path to sha256; {REFETCH}"]
    problems = []
    if manifest.get("manifest_sha256") != sha256_canonical(files):
        problems.append(f"{MANIFEST}: its manifest_sha256 is not the digest of its file list (the list was edited); "
                        f"{REFETCH}")
    present = bundle_files(bundle)
    for name in present:
        if name == MANIFEST:
            continue
        target = bundle / name
        if target.is_symlink():
            problems.append(f"{name} is a symbolic link: a bundle holds files only; {REFETCH}")
        elif name not in files:
            problems.append(f"{name} is not in {MANIFEST} (a file added since publication); remove it, or {REFETCH}")
        elif sha256_file(target) != files[name]:
            problems.append(f"{name} changed: its sha256 is {sha256_file(target)}, {MANIFEST} says {files[name]}; "
                            f"{REFETCH}")
    problems += [f"{name} is missing (listed in {MANIFEST} with {files[name]}); {REFETCH}"
                 for name in sorted(set(files) - set(present))]
    return problems
