"""The line a freeze ends with: where the record is, its modes, the source it binds, the store's history position and
how many configurations tried on calibration it was chosen from.
The harness's source is named as the record holds it: an installed harness by its distribution (name, version, the
digest of the files its RECORD lists), a clone or an editable install by its git commit; a system of its own also by
the state of its own source tree, when the record holds one."""

from pathlib import Path
from typing import Any

from harness.publish.text.trials_words import trials_phrase
from harness.systems.names import BUILTIN
from harness.typed_commands import shown


def harness_source(source: dict[str, Any]) -> str:
    installed = source.get("distribution") or {}
    if installed.get("available"):
        return (f"{installed.get('name')} {installed.get('version')}, installed (files "
                f"{installed.get('files_sha256')})")
    git = source.get("git") or {}
    return f"{git.get('commit')}" if git.get("available", True) else "no git commit and no installed distribution"


def system_source(record: dict[str, Any]) -> str:
    """The source state of a system of its own (the built-in system's source is the harness's); "" without one."""
    system, tree = record.get("system") or {}, (record.get("source") or {}).get("system_tree")
    if system.get("name") == BUILTIN or not tree:
        return ""
    git = tree.get("git")
    state = (f"git commit {git.get('commit')}{', changes uncommitted' if git.get('dirty') else ''}" if git else
             str(tree.get("kind")))
    return f"; system {system.get('name')} source: {state}"


def frozen_line(path: Path, record: dict[str, Any], position: int) -> str:
    source = record["source"]
    trials = record.get("calibration_trials")
    return (f"frozen: {shown(path)} ({record['freeze_sha256']}); modes {', '.join(record['modes'])}; "
            f"source {harness_source(source)}{system_source(record)} ({source['dirty_state_policy']}); "
            f"run ledger position {position}" + (f"; {trials_phrase(trials)}" if trials else ""))
