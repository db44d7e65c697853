"""A lock of the environment the bundled runs were made in: every installed distribution at its exact version, as
one pip requirements file (`environment/requirements.txt`), so that a reader's pip rebuilds it.

Before it is written, each version the receipts bind (the harness's dependencies, the system's distributions and
their RECORD digests) is held to what is installed here: an environment changed since the runs refuses the bundle,
naming the distribution. torch is installed first, on its own (`torch_command`): its CPU build (a `+cpu` version)
from PyTorch's CPU index, so a stock machine never takes a multi-GB CUDA build; the lock then finds it installed.
What no index can give (an editable install, a local directory or file, a VCS checkout; the harness itself, carried
as its wheel) is listed as a comment saying so.
"""

import json
import re
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from harness.atomic import write_text_file
from harness.publish.environment.refused import EnvironmentRefused
from harness.record_files import files_sha256 as record_files_sha256

LOCK_NAME = "requirements.txt"
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
NOT_LOCKED = ("pip",)  # the reader's venv brings its own


def files_sha256(name: str) -> str | None:
    """The installed distribution's files by its RECORD (harness.record_files), None without a RECORD."""
    try:
        record = metadata.distribution(name).read_text("RECORD")
    except metadata.PackageNotFoundError:
        return None
    return None if record is None else record_files_sha256(record)


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class Installed:
    name: str
    version: str
    local: str | None  # why no index gives it, or None


def _origin(distribution: metadata.Distribution) -> str | None:
    try:
        direct = json.loads(distribution.read_text("direct_url.json") or "null")
    except ValueError:
        return "installed from a place its direct_url.json does not say"
    if not isinstance(direct, dict):
        return None
    if (direct.get("dir_info") or {}).get("editable"):
        return f"installed editable from {direct.get('url')}"
    if "vcs_info" in direct:
        return f"installed from {direct.get('url')} at {(direct['vcs_info'] or {}).get('commit_id')}"
    return f"installed from {direct.get('url')}"


def installed_here() -> dict[str, Installed]:
    """Every distribution this interpreter sees, by normalized name (the first on the path wins, as imports do)."""
    found: dict[str, Installed] = {}
    for distribution in metadata.distributions():
        name = str(distribution.metadata["Name"])
        found.setdefault(normalized(name), Installed(name, distribution.version, _origin(distribution)))
    return found


def _bound(receipts: list[dict[str, Any]]) -> dict[str, tuple[str, str]]:
    """Each distribution the receipts bind: normalized name -> (version, the receipt naming it)."""
    bound: dict[str, tuple[str, str]] = {}
    for aggregate in receipts:
        receipt = aggregate["receipt"]
        named = f"{aggregate['mode']} {aggregate['split']}"
        versions = {**{k: v for k, v in receipt["dependencies"].items() if v is not None},
                    **receipt["system"]["distributions"]}
        for name, version in versions.items():
            bound.setdefault(normalized(name), (version, named))
    return bound


def check_unchanged(receipts: list[dict[str, Any]], installed: dict[str, Installed]) -> None:
    """Refuse when an installed version, or a system distribution's RECORD digest, is not what the runs bound."""
    changed = []
    for name, (version, named) in sorted(_bound(receipts).items()):
        here = installed.get(name)
        if here is None or here.version != version:
            changed.append(f"{name} {version} (bound by the {named} receipt; here "
                           f"{'not installed' if here is None else here.version})")
    for aggregate in receipts:
        for name, digest in aggregate["receipt"]["system"]["distribution_files"].items():
            if name in installed_names(installed) and files_sha256(name) != digest:
                changed.append(f"{name}'s files (RECORD digest {digest} at the {aggregate['mode']} "
                               f"{aggregate['split']} run, {files_sha256(name)} here)")
    if changed:
        raise EnvironmentRefused("the environment here is not the one the runs were made in, and the bundle locks this "
                                 "one: " + "; ".join(dict.fromkeys(changed)) + ". Reinstall what the runs used (pip "
                                 "install NAME==VERSION), or bundle from the environment that ran")


def installed_names(installed: dict[str, Installed]) -> set[str]:
    return {item.name for item in installed.values()}


def lock_text(installed: dict[str, Installed], harness: str, wheel: str | None) -> str:
    """The requirements file: a comment on how to use it, the CPU index where torch is a CPU build, each distribution
    pinned, and what no index gives as comments."""
    lines = ["# The environment the bundled runs were made in, every distribution at its exact version. From the",
             "# bundle's directory, after torch (CLAIMS.md, \"Check it yourself\"): pip install -r",
             "# environment/requirements.txt" + (f" environment/{wheel}" if wheel else "")]
    pinned, local = [], []
    for key, item in sorted(installed.items()):
        if key in (normalized(harness), *NOT_LOCKED):
            continue
        if item.local is None:
            pinned.append(f"{item.name}=={item.version}")
        else:
            local.append(f"# {item.name} {item.version}: {item.local}; no index gives it")
    harness_line = [f"# {harness}: the wheel beside this file ({wheel})" if wheel else
                    f"# {harness}: a clone at the commit the receipts name (no wheel made these runs)"]
    return "\n".join([*lines, *pinned, *harness_line, *local]) + "\n"


def torch_command(pip: str, installed: dict[str, Installed]) -> str | None:
    """The reader's first install: torch alone, its CPU build from PyTorch's CPU index (its dependencies come with the
    lock); None when the runs' environment had no torch."""
    torch = installed.get("torch")
    if torch is None:
        return None
    index = f" --index-url {TORCH_CPU_INDEX}" if torch.version.endswith("+cpu") else ""
    return f"{pip} install --no-deps{index} torch=={torch.version}"


def stage_lock(staging: Path, receipts: list[dict[str, Any]], harness: str, wheel: str | None,
               installed: dict[str, Installed]) -> Path:
    check_unchanged(receipts, installed)
    target = staging / "environment" / LOCK_NAME
    target.parent.mkdir(parents=True, exist_ok=True)
    write_text_file(target, lock_text(installed, harness, wheel))
    return target
