"""The store's manifest: the sha256 of every part, written last, and verified before a store is used."""

import json
from pathlib import Path
from typing import Any

from harness.atomic import write_bytes_atomic
from harness.errors import HarnessError, RefusedError
from harness.hashing import sha256_canonical, sha256_file, sha256_tree
from harness.json_input import read_document
from harness.schema_check import validate

STORE_SCHEMA = "scifact-store-v1"
DATABASE, MAPPING, LEXICAL, DENSE, MANIFEST = ("facts.sqlite3", "mapping.json", "lexical", "dense.f32", "store.json")


class StoreMismatchError(RefusedError):
    """The store directory belongs to other inputs."""


class StoreIntegrityError(HarnessError):
    """A store file changed after the store was built."""


FRESH = "the store is damaged: build a fresh one in a new --store-dir"


def part_digests(directory: Path) -> dict[str, str]:
    return {
        "database": sha256_file(directory / DATABASE),
        "mapping": sha256_file(directory / MAPPING),
        "lexical": sha256_tree(directory / LEXICAL),
        "dense": sha256_file(directory / DENSE),
    }


def store_digest(directory: Path) -> str:
    """One digest over every part, recomputed from the files as they are now."""
    return sha256_canonical(part_digests(directory))


def differences(recorded: dict[str, Any], wanted: dict[str, Any]) -> list[str]:
    """Each input that differs; of a nested one (the lexical parameters), only its differing fields."""
    found = []
    for key in wanted:
        had, asked = recorded.get(key), wanted[key]
        if had == asked:
            continue
        if isinstance(had, dict) and isinstance(asked, dict):
            found += [f"{key}.{field}: store has {had.get(field)!r}, requested {asked.get(field)!r}"
                      for field in sorted(set(had) | set(asked)) if had.get(field) != asked.get(field)]
        else:
            found.append(f"{key}: store has {had!r}, requested {asked!r}")
    return found


# The lexical index is built with the configuration's BM25 parameters (overrides.py's lexical.k1 and lexical.b).
CONFIGURED = ("lexical.k1", "lexical.b")


def refuse(directory: Path, differences: list[str]) -> StoreMismatchError:
    configured = any(line.startswith(CONFIGURED) for line in differences)
    fix = ("the store's BM25 parameters are its configuration's: pass the --config (the suite's --scifact-config) "
           "its calibration run was given, or a fresh --store-dir to build a store of this configuration"
           if configured else "pass a fresh --store-dir")
    return StoreMismatchError(
        f"store {directory} was built from other inputs ({'; '.join(differences)}). "
        f"A store is never rebuilt in place; {fix}."
    )


def write_manifest(directory: Path, wanted: dict[str, Any]) -> None:
    parts = part_digests(directory)
    manifest = {"schema": STORE_SCHEMA, "binding": wanted,
                "parts": {name: {"path": path, "sha256": parts[name]} for name, path in
                          (("database", DATABASE), ("mapping", MAPPING), ("lexical", LEXICAL), ("dense", DENSE))},
                "store_sha256": sha256_canonical(parts)}
    validate(manifest, "store-manifest")
    write_bytes_atomic(directory / MANIFEST, json.dumps(manifest, indent=1).encode("utf-8") + b"\n")


def verified_manifest(directory: Path, wanted: dict[str, Any]) -> dict[str, Any]:
    manifest = read_document(directory / MANIFEST, "store manifest", "store-manifest", FRESH, StoreIntegrityError)
    differing = differences(manifest.get("binding", {}), wanted)
    if differing:
        raise refuse(directory, differing)
    for name, part in manifest["parts"].items():
        if not (directory / part["path"]).exists():
            raise StoreIntegrityError(f"store part {name} ({directory / part['path']}) is missing; {FRESH}")
    current = part_digests(directory)
    for name, part in manifest["parts"].items():
        if current[name] != part["sha256"]:
            raise StoreIntegrityError(f"store part {name} ({directory / part['path']}) has {current[name]}, "
                                      f"the manifest records {part['sha256']}: it changed after the build")
    if sha256_canonical(current) != manifest["store_sha256"]:
        raise StoreIntegrityError(f"{directory / MANIFEST} records store_sha256 {manifest['store_sha256']}, but "
                                  f"its parts digest to {sha256_canonical(current)}")
    return manifest
