"""Finding a system from outside the harness by its `--system` spec, inside its worker process: a name in the
`scifact_harness.systems` entry-point group, or `module:attribute` (an object implementing
harness.systems.plugin.api, or a class or callable that makes one); what it lacks is named."""

import importlib
import importlib.metadata
import re
from typing import Any

from harness.errors import HarnessError
from harness.modes import SEARCHED
from harness.systems.names import ENTRY_POINT_GROUP
from harness.systems.plugin.api import REQUIRED_METHODS, RetrievalSystem

OPTION = "--system"  # the option's name on the command line; the pytest plugin's is --scifact-system


def how(option: str = OPTION) -> str:
    return (f"pass {option} builtin, a name registered in the {ENTRY_POINT_GROUP!r} entry-point group, or "
            "module:attribute")
VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class SystemSpecError(HarnessError):
    """--system names no usable system."""


def registered() -> dict[str, importlib.metadata.EntryPoint]:
    """The entry points of the group, read from the installed distributions' metadata (nothing is imported)."""
    return {entry.name: entry for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}


def _load(spec: str, option: str) -> Any:
    if ":" in spec:
        module_name, _, attribute = spec.partition(":")
        try:
            module = importlib.import_module(module_name)
        except Exception as exc:
            raise SystemSpecError(f"{option} {spec}: cannot import {module_name!r} ({type(exc).__name__}: {exc}); "
                                  f"{how(option)}") from exc
        found: Any = module
        for part in attribute.split("."):
            if not hasattr(found, part):
                raise SystemSpecError(f"{option} {spec}: module {module_name!r} has no attribute {attribute!r}")
            found = getattr(found, part)
        return found
    entries = registered()
    if spec not in entries:
        raise SystemSpecError(f"{option} {spec}: no such system; registered: {', '.join(sorted(entries))}; "
                              f"{how(option)}")
    try:
        return entries[spec].load()
    except Exception as exc:
        raise SystemSpecError(f"{option} {spec}: its entry point {entries[spec].value!r} does not load "
                              f"({type(exc).__name__}: {exc})") from exc


def declared_environment(spec: str, found: object, option: str = OPTION) -> tuple[str, ...]:
    """The environment variables the system declares it reads (`environment`), checked for form."""
    names = getattr(found, "environment", ()) or ()
    if isinstance(names, str) or not isinstance(names, (tuple, list)) or not all(
            isinstance(n, str) and VARIABLE_NAME.fullmatch(n) for n in names):
        raise SystemSpecError(f"{option} {spec}: environment must be a tuple of variable names, not {names!r}")
    return tuple(sorted(set(names)))


def load_plugin(spec: str, options: dict[str, str] | None = None, option: str = OPTION) -> RetrievalSystem:
    """The plugin `spec` names, checked for the interface. `options` (from the command line, such as --milvus-uri)
    are keyword arguments of a class or factory."""
    found = _load(spec, option)
    factory = isinstance(found, type) or (callable(found) and not hasattr(found, "search"))
    if options and not factory:
        raise SystemSpecError(f"{option} {spec} is an object, not a class or factory: it takes no options "
                              f"({', '.join(sorted(options))})")
    if factory:
        try:
            found = found(**(options or {}))
        except Exception as exc:
            raise SystemSpecError(f"{option} {spec}: making the system failed ({type(exc).__name__}: {exc})") from exc
    missing = [m for m in REQUIRED_METHODS if not callable(getattr(found, m, None))]
    missing += [a for a in ("name", "version") if not (isinstance(getattr(found, a, None), str) and getattr(found, a))]
    offered = getattr(found, "modes", None)
    if not (isinstance(offered, (tuple, list)) and offered and set(offered) <= set(SEARCHED)):
        missing.append(f"modes (a non-empty tuple of {', '.join(SEARCHED)})")
    if missing:
        raise SystemSpecError(f"{option} {spec}: {found!r} is not a system: it lacks {', '.join(missing)} "
                              "(see docs/systems.md)")
    declared_environment(spec, found, option)
    plugin: RetrievalSystem = found
    return plugin
