"""Which system is under test: `builtin`, a name registered in the `scifact_harness.systems` entry-point group, or
`module:attribute` (an object implementing harness.systems.plugin.api, or a class or callable that makes one).

Only the built-in system runs in the harness's own process. Any other is imported and run in a worker process of
its own (harness.systems.plugin.builder), which never holds the relevance judgements.
"""

from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.system import NAME as BUILTIN
from harness.systems.builtin.system import BuiltinBuilder
from harness.systems.plugin.builder import PluginBuilder
from harness.systems.plugin.loading import ENTRY_POINT_GROUP, HOW, SystemSpecError, registered
from harness.systems.protocol import SystemBuilder

__all__ = ["ENTRY_POINT_GROUP", "SystemSpecError", "make_builder"]


def make_builder(namespace: str, config: SearchConfig, name: str = BUILTIN,
                 options: dict[str, str] | None = None) -> SystemBuilder:
    if name == BUILTIN:
        if options:
            raise SystemSpecError(f"the built-in system takes no options ({', '.join(sorted(options))})")
        return BuiltinBuilder(namespace, config)
    if ":" not in name:
        entries = registered()
        if name not in entries:
            raise SystemSpecError(f"--system {name}: no such system; registered: "
                                  f"{', '.join([BUILTIN, *sorted(entries)])}; {HOW}")
    return PluginBuilder(name, namespace, options)
