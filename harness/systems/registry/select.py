"""Which system is under test: `builtin`, `run-file` (a run made outside the harness, read from its file), a name
registered in the `scifact_harness.systems` entry-point group, or
`module:attribute` (an object implementing harness.systems.plugin.api, or a class or callable that makes one).

Only the built-in system runs in the harness's own process. Any other is imported and run in a worker process of
its own (harness.systems.plugin.builder), which never holds the relevance judgements.
"""

from pathlib import Path

from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.system import NAME as BUILTIN
from harness.systems.builtin.system import BuiltinBuilder
from harness.systems.names import ENTRY_POINT_GROUP, RUN_FILE
from harness.systems.plugin.builder import PluginBuilder
from harness.systems.plugin.loading import OPTION, SystemSpecError, how, registered
from harness.systems.protocol import SystemBuilder
from harness.systems.registry.store_owner import OwnedStore
from harness.systems.runfile.system import RunFileBuilder

__all__ = ["ENTRY_POINT_GROUP", "SystemSpecError", "make_builder"]


def make_builder(namespace: str, config: SearchConfig, name: str = BUILTIN,
                 options: dict[str, str] | None = None, *, directory: Path | None = None,
                 option: str = OPTION) -> SystemBuilder:
    """`directory`: where a module:attribute system's module lies, when the interpreter's path does not hold it
    (harness.systems.plugin.location); `option`: the option's name as the user typed it, for messages."""
    return OwnedStore(_builder(namespace, config, name, options, directory=directory, option=option), name, option)


def _builder(namespace: str, config: SearchConfig, name: str, options: dict[str, str] | None, *,
             directory: Path | None, option: str) -> SystemBuilder:
    if name == BUILTIN:
        if options:
            raise SystemSpecError(f"the built-in system takes no options ({', '.join(sorted(options))})")
        return BuiltinBuilder(namespace, config)
    if name == RUN_FILE:
        return _run_file(namespace, options or {})
    if ":" not in name:
        entries = registered()
        if name not in entries:
            raise SystemSpecError(f"{option} {name}: no such system; registered: "
                                  f"{', '.join([BUILTIN, RUN_FILE, *sorted(entries)])}; {how(option)}")
    return PluginBuilder(name, namespace, options, directory=directory, option=option)


RUN_FILE_OPTIONS = ("file", "name", "format")


def _run_file(namespace: str, options: dict[str, str]) -> RunFileBuilder:
    """The run file named by `file` (None: the one the store keeps), its producer's `name`, its `format`."""
    unknown = sorted(set(options) - set(RUN_FILE_OPTIONS))
    if unknown:
        raise SystemSpecError(f"a run file takes the options {', '.join(RUN_FILE_OPTIONS)}, not {', '.join(unknown)}")
    given = options.get("file")
    return RunFileBuilder(namespace, None if given is None else Path(given), options.get("name"),
                          options.get("format", "auto"))
