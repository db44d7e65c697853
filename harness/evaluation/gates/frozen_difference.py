"""A run that differs from its freeze: the first field that differs, and what to do next about it.

There are always two ways on: restore what was frozen (named here for each kind of field: the environment variable,
the module's file, the library's version, the setting's value, the commit, the fixture, the store, the machine), or
calibrate again and freeze in a new --store-dir and --output-dir, which starts a new configuration with a held-out
run of its own.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

AGAIN = ("or calibrate again and freeze in a new --store-dir and --output-dir (a new configuration, with a held-out "
         "run of its own)")


@dataclass(frozen=True)
class Difference:
    path: str
    frozen: Any
    now: Any

    def __str__(self) -> str:
        return f"{self.path} (frozen {self.frozen!r}, now {self.now!r})"


def first_difference(frozen: Any, now: Any, not_compared: set[str], path: str = "") -> Difference | None:
    """The first field, in sorted key order, whose value differs; `not_compared` holds dotted paths to skip."""
    if path in not_compared:
        return None
    if isinstance(frozen, dict) and isinstance(now, dict):
        for key in sorted(set(frozen) | set(now)):
            found = first_difference(frozen.get(key), now.get(key), not_compared, f"{path}.{key}".lstrip("."))
            if found:
                return found
        return None
    return None if frozen == now else Difference(path, frozen, now)


def _named(path: str, prefix: str) -> str:
    """The name under `prefix` (a module's name may hold dots): without a trailing .sha256, .path or .source_path."""
    name = path.removeprefix(prefix)
    return name.rsplit(".", 1)[0] if name.endswith((".sha256", ".path", ".source_path")) else name


def _environment(d: Difference, commit: str) -> str:
    name = d.path.removeprefix("system.environment.")
    if d.frozen is None:
        return f"unset ${name}, as it was at the freeze"
    return (f"set ${name} back to the value frozen (the freeze binds its sha256, {d.frozen}; it is "
            f"{'unset' if d.now is None else 'another value'} now)")


def _module(d: Difference, commit: str) -> str:
    name = _named(d.path, "system.modules.")
    if d.frozen is None:
        return f"stop loading module {name}, which the system did not load at the freeze (restore its code as frozen)"
    if d.now is None:
        return f"restore the system's code as frozen, which loaded module {name}"
    return f"restore module {name} to the file frozen ({d.frozen}: its code {commit})"


def _distribution(d: Difference, commit: str) -> str:
    name = d.path.removeprefix("system.distributions.")
    if d.frozen is None:
        return f"stop loading {name}, which the system did not load at the freeze"
    return f"install {name}=={d.frozen}, the version frozen"


def _setting(d: Difference, commit: str) -> str:
    return (f"set {d.path.removeprefix('search_config.')} back to {d.frozen!r} (the configuration frozen, "
            f"{commit})")


def _system(d: Difference, commit: str) -> str:
    return (f"restore the system as frozen: its {d.path.removeprefix('system.')} was {d.frozen!r} (its code, "
            f"configuration and options {commit})")


def _installed(d: Difference, commit: str) -> str:
    return ("reinstall the distribution frozen, unchanged (pip install --force-reinstall the same wheel; its "
            f"{d.path.removeprefix('source.distribution.')} was {d.frozen!r})")


def _source(d: Difference, commit: str) -> str:
    return f"run the harness frozen ({commit}), with the work tree as it was frozen"


def _system_tree(d: Difference, commit: str) -> str:
    return f"restore the system's own work tree as it was frozen ({commit}), with no change since"


ADVICE: tuple[tuple[str, Callable[[Difference, str], str]], ...] = (
    ("system.environment.", _environment), ("system.modules.", _module), ("system.distributions.", _distribution),
    ("search_config.", _setting), ("system.", _system), ("source.distribution.", _installed),
    ("source.system_tree.", _system_tree), ("source.", _source),
    ("corpus.", lambda d, c: f"pass --corpus the fixture frozen (its {d.path}: {d.frozen!r})"),
    ("embedding.", lambda d, c: f"pass --corpus the fixture frozen, embedded as frozen (its {d.path}: {d.frozen!r})"),
    ("store.", lambda d, c: f"pass --store-dir the store frozen, as it was frozen ({d.path}: {d.frozen!r})"),
    ("host.", lambda d, c: f"run on the machine that froze ({d.path}: {d.frozen!r})"),
    ("split.", lambda d, c: f"run the harness frozen ({c}), whose split rule was frozen"),
)


def frozen_source(frozen_record: dict[str, Any], path: str) -> str:
    """Where the frozen code of the field at `path` is, in words a user acts on: the system's own work tree at its
    commit (a system in a repository of its own, for the system's fields), else the harness at its commit (git
    checkout), or as the installed distribution frozen (pip install)."""
    source = frozen_record.get("source") or {}
    system_tree = source.get("system_tree") or {}
    tree = system_tree.get("git") or {}
    if path.startswith(("system.", "search_config.", "source.system_tree.")):
        if tree.get("commit"):
            return f"at the system's commit {tree['commit']}: git checkout {tree['commit']} in its work tree"
        if system_tree.get("kind", "").startswith("no git work tree"):
            return "as the freeze bound it: no git work tree holds the system's source, whose files it binds by sha256"
    git = source.get("git") or {}
    if git.get("commit"):
        return f"at the harness's commit {git['commit']}: git checkout {git['commit']} in its clone"
    installed = source.get("distribution") or {}
    if installed.get("available"):
        return (f"in {installed.get('name')} {installed.get('version')} as installed at the freeze (files "
                f"{installed.get('files_sha256')}): pip install that wheel, unchanged")
    return "as it was at the freeze"


def next_step(difference: Difference, frozen_record: dict[str, Any]) -> str:
    """What to do about `difference`: restore what was frozen (named), or calibrate and freeze anew."""
    commit = frozen_source(frozen_record, difference.path)
    restore = next((advise(difference, commit) for prefix, advise in ADVICE if difference.path.startswith(prefix)),
                   f"restore {difference.path} to the value frozen, {difference.frozen!r}")
    return f"{restore}; {AGAIN}"
