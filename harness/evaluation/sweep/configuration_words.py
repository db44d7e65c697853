"""The built-in system's configuration in words, for CLAIMS.md's configuration line: the parameters a sweep or a
`--config` file may set (`overrides.PARAMETERS`) that are not the defaults, read from a receipt's configuration."""

from dataclasses import asdict
from typing import Any

from harness.systems.builtin.config.overrides import PARAMETERS
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.names import BUILTIN


def _parameter(config: dict[str, Any], name: str) -> Any:
    head, _, tail = name.partition(".")
    value = config.get(head)
    return value.get(tail) if tail and isinstance(value, dict) else value


def configuration_phrase(system_name: str, config: dict[str, Any]) -> str:
    """The settable parameters of the built-in system's configuration that are not its defaults, in words for the
    configuration line: '; the defaults but lexical.k1 0.9, rrf_k 20' (empty for a system of its own)."""
    if system_name != BUILTIN:
        return ""
    default = asdict(SearchConfig())
    changed = [f"{name} {_parameter(config, name)}" for name in PARAMETERS
               if _parameter(config, name) != _parameter(default, name)]
    return f"; the built-in defaults but {', '.join(changed)}" if changed else "; the built-in defaults"
