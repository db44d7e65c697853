"""A sweep's declared grid: `{"parameters": {"rrf_k": [20, 40, 60], "lexical.k1": [0.9, 1.2, 1.5, 1.8]}}`.

Its configurations are the cartesian product of the listed values, in a stated order: the parameters in the order of
`overrides.PARAMETERS` (lexical.k1, lexical.b, rrf_k, hybrid_candidate_depth), the first varying slowest, each one's
values in the order the file lists them; every parameter the grid does not list keeps its default. So configurations
that share their lexical parameters (one lexical index) are neighbours. A name that is not a settable parameter, an
empty list, a repeated value (1 and 1.0 are one value), a value of the wrong type or out of range, and a grid of more
than MAX_CONFIGURATIONS configurations are refused, naming the file, the parameter and the fix.
"""

import itertools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.hashing import sha256_canonical
from harness.systems.builtin.config.overrides import (
    LEXICAL,
    PARAMETERS,
    ConfigFileError,
    checked_value,
    configured,
    read_json,
    unknown_parameter,
)
from harness.systems.builtin.config.search_config import SearchConfig

MAX_CONFIGURATIONS = 100  # the stated bound: each configuration is evaluated on every calibration query of each mode
ORDER_RULE = ("the cartesian product of the listed values; parameters in the order lexical.k1, lexical.b, rrf_k, "
              "hybrid_candidate_depth, the first varying slowest; each one's values in the order the grid lists them; "
              "a parameter the grid does not list keeps the built-in system's default")
FIX = ('write the grid as {"parameters": {"rrf_k": [20, 40, 60], "lexical.k1": [0.9, 1.2]}}: each a settable '
       f"parameter ({', '.join(PARAMETERS)}) with a list of distinct values")

Value = int | float


@dataclass(frozen=True)
class Grid:
    path: Path
    parameters: tuple[tuple[str, tuple[Value, ...]], ...]  # in the stated order

    def declared(self) -> dict[str, Any]:
        """The grid as read: parameter -> its values, in the stated order."""
        return {"parameters": {name: list(values) for name, values in self.parameters}, "order": ORDER_RULE}

    def sha256(self) -> str:
        """The digest of the declared grid: its parameters in the stated order, each with its values, and the rule."""
        return sha256_canonical({"parameters": [[name, list(values)] for name, values in self.parameters],
                                 "order": ORDER_RULE})

    def configurations(self) -> list[dict[str, Value]]:
        """Every configuration's parameters (the grid's only), in the stated order."""
        names = [name for name, _ in self.parameters]
        return [dict(zip(names, values, strict=True))
                for values in itertools.product(*(values for _, values in self.parameters))]

    def search_config(self, parameters: dict[str, Value]) -> SearchConfig:
        return configured(parameters, f"sweep grid {self.path}", FIX)


def lexical_key(parameters: dict[str, Value]) -> tuple[tuple[str, Value], ...]:
    """What a configuration's lexical index is built with: configurations with the same key share one store."""
    return tuple((name, parameters[name]) for name in LEXICAL if name in parameters)


def read_grid(path: Path) -> Grid:
    """The grid file, every refusal naming the file, the parameter and the fix."""
    value = read_json(path, "sweep grid", FIX)
    if not isinstance(value, dict) or "parameters" not in value:
        raise ConfigFileError(f"sweep grid {path} holds no \"parameters\" object; {FIX}")
    extra = sorted(set(value) - {"parameters"})
    if extra:
        raise ConfigFileError(f"sweep grid {path} has the key {extra[0]!r}; a grid holds only \"parameters\"; {FIX}")
    declared = value["parameters"]
    if not isinstance(declared, dict) or not declared:
        raise ConfigFileError(f"sweep grid {path} declares no parameter (\"parameters\" is "
                              f"{'empty' if declared == {} else 'not an object'}); {FIX}")
    where = f"sweep grid {path}"
    for name in declared:
        if name not in PARAMETERS:
            hint = ' (name it "lexical.k1" or "lexical.b" in a grid)' if name == "lexical" else ""
            raise unknown_parameter(name + hint, where, FIX)
    parameters = tuple((name, _values(name, declared[name], where)) for name in PARAMETERS if name in declared)
    count = math.prod(len(values) for _, values in parameters)
    if count > MAX_CONFIGURATIONS:
        sizes = " x ".join(f"{len(values)} ({name})" for name, values in parameters)
        raise ConfigFileError(f"sweep grid {path} declares {sizes} = {count} configurations, more than the "
                              f"{MAX_CONFIGURATIONS} one sweep evaluates; list fewer values, or split the grid into "
                              "sweeps run one after another (every configuration of every sweep is counted among "
                              "those tried on calibration)")
    grid = Grid(path, parameters)
    for parameters_of in grid.configurations():  # a combination SearchConfig refuses, named before any work
        grid.search_config(parameters_of)
    return grid


def _values(name: str, given: Any, where: str) -> tuple[Value, ...]:
    if not isinstance(given, list):
        raise ConfigFileError(f"{where} gives {name} {given!r}, not a list of values; write \"{name}\": [...] with "
                              "one value or more")
    if not given:
        raise ConfigFileError(f"{where} gives {name} an empty list: a parameter swept over no value leaves no "
                              f"configuration; list one value or more, or leave {name} out (its default is kept)")
    values = tuple(checked_value(name, value, where, FIX) for value in given)
    repeated = next((v for i, v in enumerate(values) if v in values[:i]), None)
    if repeated is not None:
        raise ConfigFileError(f"{where} lists the value {repeated!r} of {name} twice: a configuration would be "
                              f"evaluated twice and counted once; list each value of {name} once")
    return values
