"""`environment/` of a bundle: the harness wheel that made the runs (when an installed harness made them) and the lock
of the environment, both checked against the receipts before they are written."""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.evaluation.receipts import distribution
from harness.publish.environment.environment_lock import installed_here, stage_lock, torch_command
from harness.publish.environment.harness_wheel import stage_harness_wheel
from harness.publish.environment.refused import EnvironmentRefused


@dataclass(frozen=True)
class StagedEnvironment:
    wheel: str | None  # the harness wheel's file name under environment/, None for a clone's runs
    lock: str  # the lock's path in the bundle
    commit: str | None  # a clone's commit, which the reader checks out instead of installing a wheel
    torch: str | None  # the reader's first install, with {pip} for the reader's pip: torch alone, as the runs had it


def stage_environment(staging: Path, aggregates: list[dict[str, Any]]) -> StagedEnvironment:
    source = aggregates[0]["receipt"]["source"]
    recorded = source.get("distribution") or {}
    wheel = None
    if recorded.get("available"):
        here = distribution.find()
        if here is None:
            raise EnvironmentRefused(f"the runs were made by the installed {recorded.get('name')} "
                                     f"{recorded.get('version')}, and the harness bundling them is a clone or an "
                                     "editable install: bundle with the installed harness that made them")
        wheel = stage_harness_wheel(staging, here, str(recorded["files_sha256"])).name
    installed = installed_here()
    lock = stage_lock(staging, aggregates, distribution.NAME, wheel, installed)
    return StagedEnvironment(wheel, lock.relative_to(staging).as_posix(),
                             None if wheel else (source.get("git") or {}).get("commit"),
                             torch_command("{pip}", installed))
