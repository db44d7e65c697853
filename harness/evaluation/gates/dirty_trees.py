"""What keeps a freeze from being clean, by path: the harness's work tree, the system's own work tree, the installed
distribution's changed files. The freeze record keeps digests; the refusal names the paths, so the user knows what
to commit, to list in .gitignore, or to reinstall."""

from pathlib import Path
from typing import Any

from harness.evaluation.receipts import provenance
from harness.source_digest import PACKAGE_ROOT

SHOWN = 8


def _listed(paths: list[str]) -> str:
    shown = ", ".join(paths[:SHOWN])
    return shown + (f" and {len(paths) - SHOWN} more" if len(paths) > SHOWN else "")


def dirty_trees(record: dict[str, Any], root: Path) -> list[str]:
    """Each unclean source the record shows, described with its paths (read again from git where it keeps digests);
    `root` is where the system's source lies here (the record names it only)."""
    source = record["source"]
    found: list[str] = []
    if source["git"].get("dirty"):
        clone = PACKAGE_ROOT.parent
        paths = provenance.git_state(clone).get("changed_paths") or []
        found.append(f"the harness's work tree {clone} ({_listed(paths)})")
    tree = source.get("system_tree") or {}
    if (tree.get("git") or {}).get("dirty"):
        paths = provenance.git_state(root).get("changed_paths") or []
        found.append(f"the system's own work tree {root} ({_listed(paths)})")
    if tree.get("kind") == provenance.OWN_WORK_TREE:
        system = record["system"]
        loaded = [m["source_path"] for m in system["modules"].values() if "source_path" in m]
        ignored = provenance.untracked(root, sorted({*system["source"]["files"], *loaded}))
        if ignored:
            found.append(f"the system's own work tree {root}, whose files the system runs but git does not track "
                         f"(ignored: {_listed(ignored)}; commit them, or install what is not yours as a "
                         "distribution)")
    installed = source.get("distribution") or {}
    if installed.get("available") and installed.get("changed"):
        found.append(f"the installed distribution {installed['name']} {installed['version']}, whose files differ from "
                     f"its RECORD ({_listed(installed['changed'])}): reinstall it (pip install --force-reinstall)")
    return found


def refusal(found: list[str]) -> str:
    return (f"the freeze needs clean sources, and {'; and '.join(found)} "
            f"{'has' if len(found) == 1 else 'have'} changes: commit them (a file the system runs is committed, not "
            "ignored), or list what is not source (a store, results) in .gitignore, then freeze again; or pass "
            "--allow-dirty (recorded: runs under a dirty freeze are not eligible for a claim)")
