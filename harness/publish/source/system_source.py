"""The system's source in the bundle: exactly the files the receipts hash, copied from where the run read them.

Copied under `system-source/`: the system's source files (`receipt.system.source`, by their path under the recorded
root), the modules its worker loaded from under that root (`receipt.system.modules` with a `source_path`: at that
path) and the other modules that are its own (with an absolute `path`, less any file an installed distribution
ships, such as an editable install's finder, and the harness's own), each by its module name, so that
`system-source/` on PYTHONPATH imports what the run imported, and a replay from there binds the same modules. Each
file is read once and its sha256 held to every receipt that names it before it is written into the staging
directory; a file missing or changed since the run refuses the bundle, naming it. `system-source.json` says where
each file was read from. A system whose source is the harness itself (its source digest is the harness's, as for the
built-in system) is not copied: the receipts' harness digest and commit name it.

This runs while the bundle stages its inputs, before the validator sees them; a staged aggregate whose receipt is
unreadable or whose system block is off the schema contributes nothing here, and the validator refuses it next.
"""

import importlib.metadata
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from harness.atomic import write_file, write_text_file
from harness.errors import RefusedError
from harness.evaluation.receipts.locations import LOCATIONS_NAME, SOURCES, hinted
from harness.hashing import sha256_bytes
from harness.schema_check import validator
from harness.source_digest import PACKAGE_ROOT

SOURCE_DIR = "system-source"
INDEX_NAME = "system-source.json"


class SourceRefused(RefusedError):
    """The system's source cannot be bundled as the receipts hash it."""


@dataclass(frozen=True)
class Wanted:
    origin: Path
    sha256: str
    receipts: tuple[str, ...]


@dataclass(frozen=True)
class StagedSource:
    spec: str
    root: str
    harness_sha256: str | None  # the system's source is the harness itself (nothing of it copied)
    files: dict[str, dict[str, str]]  # path in the bundle -> {"from": where it was read, "sha256": its digest}
    source_files: int  # how many of them are the source files `receipt.system.source` names (the rest: modules)


def _receipts(aggregates: Sequence[Path]) -> list[tuple[str, dict[str, Any]]]:
    found = []
    for path in aggregates:
        try:
            receipt = json.loads(path.read_bytes())["receipt"]
            harness = receipt["source"]["harness"]["sha256"]
        except (ValueError, KeyError, TypeError, IndexError):
            continue
        if isinstance(harness, str) and validator("aggregate", "systemIdentity").is_valid(receipt.get("system")):
            found.append((path.name, receipt))
    return found


def _inside(name: str) -> PurePosixPath:
    """A recorded relative path, or one made from a module name, as a path inside system-source/."""
    path = PurePosixPath(name)
    if "\\" in name or path.is_absolute() or not path.parts or any(p in ("", ".", "..") for p in path.parts):
        raise SourceRefused(f"the receipts name the system's file {name!r}, which would land outside {SOURCE_DIR}/; "
                            "a receipt the harness wrote names none: bundle the output directory of an evaluation "
                            "as it was run")
    return path


def _module_path(name: str, path: Path) -> PurePosixPath:
    """Where a module goes so that it imports by `name`: a package's `__init__`, a module file (a compiled extension
    keeps its full name), or else the archive it was imported from, by its file name."""
    parts = name.split(".")
    if path.name.startswith("__init__."):
        return _inside("/".join([*parts, path.name]))
    if path.name.split(".")[0] == parts[-1]:
        return _inside("/".join([*parts[:-1], path.name]))
    return _inside(path.name)


# What `Distribution.files` reads its list from (importlib.metadata: RECORD, else installed-files.txt, else
# SOURCES.txt): a distribution's listed files are known by where it lies and the digests of those lists.
_LISTINGS = ("RECORD", "installed-files.txt", "SOURCES.txt")


@dataclass
class _Listed:
    """One distribution's files by file name: where each lies, and (once asked for) where that resolves to."""
    located: dict[str, list[str]]
    resolved: dict[str, set[Path]]

    def shipped(self, name: str) -> set[Path]:
        if name not in self.resolved:
            self.resolved[name] = {Path(located).resolve() for located in self.located.get(name, ())}
        return self.resolved[name]


_LISTED: dict[tuple[str, ...], _Listed] = {}


def _listed(distribution: importlib.metadata.Distribution) -> _Listed:
    """Read once per process and listing: parsing every distribution's list and resolving each `__init__.py` it
    names took about half a second a bundle."""
    key = (str(distribution.locate_file("")),
           *(sha256_bytes((distribution.read_text(name) or "").encode()) for name in _LISTINGS))
    known = _LISTED.get(key)
    if known is None:
        known = _LISTED[key] = _Listed({}, {})
        for file in distribution.files or ():
            known.located.setdefault(file.name, []).append(str(distribution.locate_file(file)))
    return known


def _installed(paths: set[Path]) -> set[Path]:
    """Those of `paths` that an installed distribution lists among its files."""
    names = {path.name for path in paths}
    shipped: set[Path] = set()
    for distribution in importlib.metadata.distributions():
        listed = _listed(distribution)
        for name in names:
            shipped |= listed.shipped(name)
    return paths & shipped


def _own_modules(system: dict[str, Any]) -> dict[str, Path]:
    """The modules recorded by absolute path that are the system's own (those under its source root are staged by
    their `source_path`)."""
    modules = {name: Path(module["path"]).resolve() for name, module in system["modules"].items()
               if "path" in module}
    shipped = _installed(set(modules.values()))
    return {name: path for name, path in modules.items()
            if path not in shipped and not path.is_relative_to(PACKAGE_ROOT)}


def _want(wanted: dict[PurePosixPath, Wanted], target: PurePosixPath, origin: Path, digest: str, named: str) -> None:
    known = wanted.get(target)
    if known is None:
        wanted[target] = Wanted(origin, digest, (named,))
    elif known.origin != origin:
        raise SourceRefused(f"{known.origin} and {origin} would both be bundled as {SOURCE_DIR}/{target}: the system "
                            "loads two files of one name; rename one of them, then evaluate the system again")
    elif known.sha256 != digest:
        raise SourceRefused(f"the receipts disagree about the system's file {origin}: {known.receipts[0]} hashes it "
                            f"{known.sha256}, {named} {digest}; a bundle holds the runs of one frozen system")
    elif named not in known.receipts:
        wanted[target] = Wanted(origin, digest, (*known.receipts, named))


def _source_root(output_dir: Path, source: dict[str, Any], named: str) -> Path:
    """Where the system's source root lies here: the receipts name it, the output directory's locations.json places
    it (and the files' digests, checked as they are copied, say whether it is the source that ran)."""
    root = hinted(output_dir, SOURCES, source["sha256"])
    if root is None:
        raise SourceRefused(f"{named} names the system's source root {source['root']!r} by its digest "
                            f"{source['sha256']}, and {output_dir / LOCATIONS_NAME} does not place it: bundle on the "
                            "machine that ran, from the output directory the run wrote")
    return root


def _wanted(receipts: list[tuple[str, dict[str, Any]]], output_dir: Path) -> dict[PurePosixPath, Wanted]:
    wanted: dict[PurePosixPath, Wanted] = {}
    for named, receipt in receipts:
        system = receipt["system"]
        source = system["source"]
        if source["sha256"] != receipt["source"]["harness"]["sha256"]:
            root = _source_root(output_dir, source, named)
            for relative, digest in source["files"].items():
                _want(wanted, _inside(relative), (root / relative).resolve(), digest, named)
        for module in system["modules"].values():
            if "source_path" in module:
                under = _source_root(output_dir, source, named)
                _want(wanted, _inside(module["source_path"]), (under / module["source_path"]).resolve(),
                      module["sha256"], named)
        for name, path in _own_modules(system).items():
            _want(wanted, _module_path(name, path), path, system["modules"][name]["sha256"], named)
    return wanted


def _copy(staging: Path, target: PurePosixPath, file: Wanted) -> None:
    try:
        data = file.origin.read_bytes()
    except OSError as exc:
        raise SourceRefused(f"the system's source file {file.origin} cannot be read ({exc.strerror or exc}); the "
                            f"receipts ({', '.join(file.receipts)}) hash it as {file.sha256}: bundle where the system "
                            "ran, with its source as it was run") from exc
    found = sha256_bytes(data)
    if found != file.sha256:
        raise SourceRefused(f"the system's source file {file.origin} does not match the receipts' sha256 (they hash "
                            f"{file.sha256}; it is now {found}): it changed after the run, so {SOURCE_DIR}/{target} "
                            "would not be the source that ran. Restore it as it was run and bundle again, or "
                            "evaluate the changed system anew (calibration, freeze and held-out in a new --store-dir "
                            "and --output-dir)")
    destination = staging / SOURCE_DIR / target
    destination.parent.mkdir(parents=True, exist_ok=True)
    write_file(destination, data)


def stage_system_source(staging: Path, aggregates: Sequence[Path], output_dir: Path) -> StagedSource | None:
    """Copy the system's source named by the staged `aggregates` (copies of `output_dir`'s) into `staging`, each file
    checked against its sha256, and write `system-source.json`; what was staged, or None when no receipt could be
    read."""
    receipts = _receipts(aggregates)
    if not receipts:
        return None
    wanted = _wanted(receipts, output_dir)
    for target, file in sorted(wanted.items()):
        _copy(staging, target, file)
    first = receipts[0][1]
    harness = first["source"]["harness"]["sha256"]
    is_harness = first["system"]["source"]["sha256"] == harness
    staged = StagedSource(
        spec=first["system"]["spec"], root=first["system"]["source"]["root"],
        harness_sha256=harness if is_harness else None,
        files={f"{SOURCE_DIR}/{target}": {"from": str(file.origin), "sha256": file.sha256}
               for target, file in sorted(wanted.items())},
        source_files=0 if is_harness else len(first["system"]["source"]["files"]))
    index = {"system": staged.spec, "root": staged.root, "source_is_the_harness": staged.harness_sha256 is not None,
             "harness_sha256": harness, "files": staged.files}
    write_text_file(staging / INDEX_NAME, json.dumps(index, indent=1, ensure_ascii=False) + "\n")
    return staged
