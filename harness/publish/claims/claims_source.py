"""What CLAIMS.md says of the system's source: the copy the bundle holds (or that it is the harness itself), how to
re-run it, and the state of the tree it came from at the freeze."""

from typing import Any

from harness.evaluation.receipts.provenance import DIGEST_ONLY, HARNESS_ITSELF, INSIDE_CLONE
from harness.publish.source.system_source import INDEX_NAME, SOURCE_DIR, StagedSource
from harness.publish.text.markdown_text import code, inert


def harness_origin(source: dict[str, Any]) -> str:
    """Where the harness that ran came from: its installed distribution (RECORD) or its git commit."""
    installed = source.get("distribution") or {}
    if installed.get("available"):
        return (f"the installed distribution {code(installed['name'] + ' ' + installed['version'])} (files "
                f"{code(installed['files_sha256'])}, checked against its RECORD)")
    return f"commit {code(source['git'].get('commit'))}"


def _tree(freeze: dict[str, Any]) -> str:
    tree = freeze["source"].get("system_tree")
    if tree is None:
        return "not recorded (a freeze record written before the freeze checked it)"
    if tree["kind"] == HARNESS_ITSELF:
        return "the harness itself, so the harness's identity (above) covers it"
    if tree["kind"] == INSIDE_CLONE:
        return "inside the harness's clone, so the clone's commit and dirty-state check (above) cover it"
    if tree["kind"] == DIGEST_ONLY:
        return ("not in a git work tree: the source is bound by digest only (the sha256 of each of its files, in the "
                "receipts and the freeze), by no commit")
    git = tree["git"]
    state = ("with uncommitted changes, allowed by --allow-dirty and recorded" if git["dirty"]
             else "clean")
    return (f"a git work tree of its own, at commit {code(git['commit'])}, {state} at the freeze; its files are "
            "bound by their sha256 besides")


def _files(count: int) -> str:
    return f"{inert(count)} file{'' if count == 1 else 's'}"


def source_lines(source: StagedSource | None, freeze: dict[str, Any]) -> list[str]:
    """Bullets for "What was run"."""
    if source is None:
        return []
    if source.harness_sha256 is not None:
        return [f"- The system's source: the harness itself (harness digest {code(source.harness_sha256)}, the "
                "source above); the bundle holds no copy of it: check out that commit, or install that distribution, "
                "to read or re-run it"]
    count, modules = len(source.files), len(source.files) - source.source_files
    held = (f"{_files(count)} ({_files(source.source_files)} of its source, {inert(modules)} more "
            f"module{'' if modules == 1 else 's'} its worker loaded), {'matching' if count == 1 else 'each matching'} "
            f"the receipt's sha256 (where each was read from: {code(INDEX_NAME)})")
    rerun = (f"make it importable ({code('export PYTHONPATH=' + SOURCE_DIR)} in the bundle's directory; a system "
             "registered by name: install its package from these files), install the distributions the receipts list "
             f"under `system.distributions`, and run {code('python -m harness run --system ' + source.spec)} on the "
             "fixture of `fixture-metadata.json`")
    return [f"- The system's source: {code(SOURCE_DIR + '/')}, {held}. To re-run: {rerun}",
            f"- The system's source tree ({code(source.root)}): {_tree(freeze)}"]
