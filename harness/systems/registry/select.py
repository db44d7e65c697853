"""Which system is under test: the built-in one, by name, with its search configuration."""

from harness.errors import HarnessError
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.system import NAME as BUILTIN
from harness.systems.builtin.system import BuiltinBuilder
from harness.systems.protocol import SystemBuilder

SYSTEMS = (BUILTIN,)


def make_builder(namespace: str, config: SearchConfig, name: str = BUILTIN) -> SystemBuilder:
    if name != BUILTIN:
        raise HarnessError(f"unknown system {name!r}; the systems available are: {', '.join(SYSTEMS)}")
    return BuiltinBuilder(namespace, config)
