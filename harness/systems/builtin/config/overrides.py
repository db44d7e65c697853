"""The built-in system's configuration overrides as a JSON file names them (`run --config FILE`, `freeze --config FILE`,
the suite's `--scifact-config=FILE`), and the parameters a sweep may vary (`sweep --grid GRID`, `config/grid.py`).

Only the fields of `SearchConfig` that change a ranking and that the harness implements can be set:

- `lexical.k1` and `lexical.b`: BM25's term-frequency saturation (> 0) and length normalisation (0 to 1), built into
  the lexical index, so each pair of values is a store of its own;
- `rrf_k`: reciprocal rank fusion's constant (an integer >= 1), read at search time;
- `hybrid_candidate_depth`: how deep each lane's list goes into the fusion (an integer >= top_k), read at search time.

The frozen-baseline switches (sparse, late interaction, Matryoshka, recency, derived vectors) ask for capabilities the
harness does not have; top_k is the contract's; the rest (tokenizer, dense backend, tie rule) say what the harness
does, not a choice. A file sets them nested as `SearchConfig` holds them, `{"rrf_k": 40, "lexical": {"k1": 1.2}}`.
"""

import dataclasses
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.json_input import strict_loads
from harness.systems.builtin.config.search_config import ConfigError, LexicalConfig, SearchConfig


class ConfigFileError(HarnessError):
    """A configuration file (or a sweep's grid) names a parameter, value or shape the harness cannot take."""


@dataclass(frozen=True)
class Parameter:
    kind: type  # int or float
    meaning: str  # what it takes, for messages
    allowed: Callable[[float], bool]


PARAMETERS: dict[str, Parameter] = {  # the stated order: a grid's first parameter varies slowest
    "lexical.k1": Parameter(float, "a number > 0 (BM25's term-frequency saturation; default 1.5)",
                            lambda v: 0 < v < math.inf),
    "lexical.b": Parameter(float, "a number from 0 to 1 (BM25's length normalisation; default 0.75)",
                           lambda v: 0 <= v <= 1),
    "rrf_k": Parameter(int, "an integer >= 1 (reciprocal rank fusion's k; default 60)", lambda v: v >= 1),
    "hybrid_candidate_depth": Parameter(int, "an integer >= top_k, 10 (each lane's depth into the fusion; default "
                                             "100)", lambda v: v >= SearchConfig().top_k),
}
LEXICAL = ("lexical.k1", "lexical.b")  # the parameters the lexical index is built with
NOT_SETTABLE = ("top_k is the contract's; the frozen-baseline switches (sparse_weight, dense_derived_sparse, "
                "late_interaction_weight, candidate_dims, recency, derived_vector_backend) ask for capabilities this "
                "harness does not have; the other fields say what the harness does, not a choice")


def read_json(path: Path, what: str, fix: str) -> Any:
    """The JSON value of `path`, strictly (no repeated key, NaN or Infinity); else ConfigFileError naming the file."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigFileError(f"{what} {path} cannot be read ({exc.strerror or exc}); {fix}") from None
    try:
        return strict_loads(raw)
    except (ValueError, RecursionError) as exc:
        raise ConfigFileError(f"{what} {path} is not valid JSON ({exc}); {fix}") from None


def unknown_parameter(name: str, where: str, fix: str) -> ConfigFileError:
    return ConfigFileError(f"{where} names {name!r}, which is not a parameter of the built-in system that can be set: "
                           f"the settable ones are {', '.join(PARAMETERS)} ({NOT_SETTABLE}); {fix}")


def checked_value(name: str, value: Any, where: str, fix: str) -> int | float:
    """`value` as `name` takes it (an integer, or a number made a float so that 1 and 1.0 are one configuration)."""
    parameter = PARAMETERS[name]
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if not number or (parameter.kind is int and not isinstance(value, int)):
        raise ConfigFileError(f"{where} gives {name} the value {json.dumps(value)}, a JSON "
                              f"{_json_type(value)}: {name} takes {parameter.meaning}; {fix}")
    typed = float(value) if parameter.kind is float else int(value)
    if not parameter.allowed(typed):
        raise ConfigFileError(f"{where} gives {name} the value {json.dumps(value)}: {name} takes {parameter.meaning}; "
                              f"{fix}")
    return typed


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "integer" if isinstance(value, int) else "number with a fraction"
    return {str: "string", list: "array", dict: "object", type(None): "null"}.get(type(value), type(value).__name__)


def flat(overrides: dict[str, Any], where: str, fix: str) -> dict[str, int | float]:
    """A nested override object (`{"lexical": {"k1": 1.2}}`) as parameter -> checked value."""
    found: dict[str, int | float] = {}
    for key, value in overrides.items():
        if key == "lexical" and isinstance(value, dict):
            for inner, inner_value in value.items():
                name = f"lexical.{inner}"
                if name not in PARAMETERS:
                    raise unknown_parameter(name, where, fix)
                found[name] = checked_value(name, inner_value, where, fix)
        elif key == "lexical":
            raise ConfigFileError(f"{where} gives lexical the JSON {_json_type(value)} {json.dumps(value)}, not an "
                                  f'object of its parameters ({{"lexical": {{"k1": 1.2, "b": 0.75}}}}); {fix}')
        elif key in PARAMETERS:
            found[key] = checked_value(key, value, where, fix)
        else:
            raise unknown_parameter(key, where, fix)
    return found


def nested(parameters: dict[str, int | float]) -> dict[str, Any]:
    """Parameter -> value as a configuration file writes it: `{"lexical": {"k1": 1.2}, "rrf_k": 40}`."""
    result: dict[str, Any] = {}
    for name in PARAMETERS:
        if name in parameters:
            head, _, tail = name.partition(".")
            if tail:
                result.setdefault(head, {})[tail] = parameters[name]
            else:
                result[name] = parameters[name]
    return result


def configured(parameters: dict[str, int | float], where: str = "the configuration", fix: str = "") -> SearchConfig:
    """The default SearchConfig with `parameters` (checked values) set."""
    lexical: dict[str, Any] = {name.removeprefix("lexical."): value for name, value in parameters.items()
                               if name in LEXICAL}
    top: dict[str, Any] = {name: value for name, value in parameters.items() if name not in LEXICAL}
    try:
        return dataclasses.replace(SearchConfig(), lexical=dataclasses.replace(LexicalConfig(), **lexical), **top)
    except ConfigError as exc:
        raise ConfigFileError(f"{where}: {exc}; {fix}".rstrip("; ")) from None


def load_config(path: Path) -> SearchConfig:
    """`run --config FILE`: the built-in system's configuration with the file's overrides; each bad one named."""
    fix = ('write the overrides as a JSON object, e.g. {"rrf_k": 40, "lexical": {"k1": 1.2}}, with only the '
           f"parameters {', '.join(PARAMETERS)}")
    value = read_json(path, "configuration file", fix)
    if not isinstance(value, dict):
        raise ConfigFileError(f"configuration file {path} holds a JSON {_json_type(value)}, not an object; {fix}")
    where = f"configuration file {path}"
    return configured(flat(value, where, fix), where, fix)


def overrides_of(config: SearchConfig) -> dict[str, Any]:
    """The settable parameters in which `config` differs from the default, nested as a configuration file holds
    them."""
    default = SearchConfig()
    differing = {name: _get(config, name) for name in PARAMETERS if _get(config, name) != _get(default, name)}
    return nested(differing)


def _get(config: SearchConfig, name: str) -> Any:
    head, _, tail = name.partition(".")
    return getattr(getattr(config, head), tail) if tail else getattr(config, head)
