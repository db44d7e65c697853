"""Which harness ran: the installed distribution the receipt names, checked against the one beside this validator,
or the git commit it names, checked against the checked-out HEAD; and whether either was clean."""

import subprocess
from typing import Any

from ..core.context import Context
from ..core.installed import installed_here
from ..core.report import Report
from ..core.source_tree import HARNESS_DIR


def _git(*args: str) -> str | None:
    try:
        result = subprocess.run(["git", "-C", str(HARNESS_DIR.parent), *args], capture_output=True, text=True,
                                timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout.strip() if result.returncode == 0 else None


def _system_tree_dirty(ctx: Context) -> list[str]:
    """A system's source in a git work tree of its own: its state at the freeze (the record the receipt binds)."""
    system_git = (((ctx.freeze or {}).get("source") or {}).get("system_tree") or {}).get("git") or {}
    return [f"the system's own work tree at the freeze (commit {system_git.get('commit')})"
            ] if system_git.get("dirty") else []


def _clean(ctx: Context, report: Report, dirty: list[str], said: str) -> None:
    """A change the run recorded FAILs; a clean state is the run's statement, which no one can recompute after the
    run: ATTESTED, never PASS (the receipt's source block is the one the ledger's run-started event bound, ledger.run,
    and the freeze record the ledger's freeze event bound)."""
    dirty = dirty + _system_tree_dirty(ctx)
    if dirty:
        report.fail("source.clean", f"{said}, and a system's source in a work tree of its own was clean at the freeze "
                    "(a change is recorded and not eligible)", "clean", dirty)
    else:
        report.attest("source.clean", f"the publisher's record says {said}, and that a system's source in a work "
                      "tree of its own was clean at the freeze; bound to the run ledger's run-started event and the "
                      "freeze record, not recomputable afterwards")


def _distribution(ctx: Context, report: Report, recorded: dict[str, Any]) -> None:
    named = f"{recorded.get('name')} {recorded.get('version')}"
    here = installed_here()
    if here is None:
        report.unverified("source.distribution", f"the run used the installed distribution {named}; the harness beside "
                          "this validator is a clone or an editable install: install that distribution (pip install, "
                          "not editable) and validate with its scifact-validate to verify it")
    elif here.changed:
        report.fail("source.distribution", f"files of the installed distribution beside this validator differ from "
                    f"its RECORD: {', '.join(here.changed)} (reinstall it: pip install --force-reinstall)")
    else:
        report.equal("source.distribution", (recorded.get("name"), recorded.get("version"),
                                             recorded.get("files_sha256")),
                     (here.name, here.version, here.files_sha256), "the installed distribution beside this validator "
                     "is the one the run recorded (name, version, the digest of its RECORD's files), and each of its "
                     "files is the one its RECORD lists")
    dirty = ([f"the installed distribution: {recorded.get('changed')}"] if recorded.get("changed") != [] else [])
    _clean(ctx, report, dirty, "the run's installed distribution matched its RECORD")


def check_source(ctx: Context, report: Report) -> None:
    source = ctx.receipt["source"]
    installed = source.get("distribution") or {}
    if installed.get("available"):
        _distribution(ctx, report, installed)
        return
    git = source["git"]
    if not git.get("available"):
        report.unverified("source.git", f"the run recorded no git state: {git.get('reason')}")
        return
    head = _git("rev-parse", "HEAD")
    if head is None:
        report.unverified("source.git", "git is not available here to resolve the recorded commit")
    else:
        report.equal("source.git", git["commit"], head, "the recorded commit is the checked-out HEAD")
    dirty = [f"the clone: {git.get('changed_paths')}"] if git.get("dirty") is not False else []
    _clean(ctx, report, dirty, "the run started from a clean work tree")
