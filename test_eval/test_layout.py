"""The package's layout as tests: no import cycle between modules or between rooms, each room depends only on the
rooms before it in the flow, the evaluation speaks to a system only through its interface, and no module is
longer than 250 lines. The import graph is read from the source (every `import` statement, also inside
functions), not from what happens to be loaded.
"""

import ast
from collections.abc import Iterable
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "harness"
MAX_LINES = 250
BASICS = "basics"  # the top-level modules every room may use: errors, hashing, atomic, modes, ...
FACADE = "facade"  # harness/__init__.py: `harness.evaluate` and `harness.calibration`, each importing when called
# room -> the rooms it may import from (besides itself and the basics); the flow reads left to right
ALLOWED: dict[str, set[str]] = {
    BASICS: set(),
    FACADE: {"corpus", "evaluation"},
    "corpus": set(),
    "embedding": {"corpus"},
    "fixture": {"corpus", "embedding"},
    "systems": {"fixture"},
    "evaluation": {"corpus", "fixture", "systems"},
    "publish": {"evaluation", "validator"},
    "cli": {"corpus", "embedding", "fixture", "systems", "evaluation", "publish", "validator"},
    "validator": set(),
    "suite": {"corpus", "embedding", "fixture", "systems", "evaluation", "publish", "cli", "validator"},
}
# modules that speak to the system under test through its interface only, never to the built-in system
INTERFACE_ONLY = ("harness.evaluation.runner", "harness.evaluation.receipts.receipt", "harness.evaluation.gates.freeze",
                  "harness.evaluation.history.ledger", "harness.publish.bundle")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if "__pycache__" not in p.parts}


def _resolve(importer: str, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    package = importer.split(".")
    if MODULES[importer].name != "__init__.py":
        package = package[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(name: str) -> set[str]:
    """The harness modules `name` imports (a `from package import module` counts as the module)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(MODULES[name].read_text(encoding="utf-8"))):
        targets: Iterable[str] = ()
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(name, node)
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target.startswith("harness") and target != name:
                found.add(target)
    return found


GRAPH = {name: imports_of(name) for name in MODULES}


def room(name: str) -> str:
    if name == "harness.__main__":  # `python -m harness` is the command line's entry point
        return "cli"
    if name == "harness":  # the package's own module is the public facade, which no room imports
        return FACADE
    parts = name.split(".")
    if len(parts) == 2 and MODULES[name].name != "__init__.py":
        return BASICS
    return parts[1]


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one member (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in graph.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def packages_graph() -> dict[str, set[str]]:
    """Package -> the packages its modules import, for every package of the harness (nested ones too)."""
    def package(name: str) -> str:
        if name in ("harness.__main__", "harness"):  # entry points, not members of the package they start
            return name if name != "harness" else "harness.__init__"
        return name if MODULES[name].name == "__init__.py" else name.rpartition(".")[0]
    graph: dict[str, set[str]] = {}
    for name, targets in GRAPH.items():
        graph.setdefault(package(name), set()).update(package(t) for t in targets if package(t) != package(name))
    return graph


def test_the_import_graph_is_read_from_the_source() -> None:
    assert "harness.systems.protocol" in GRAPH["harness.evaluation.runner"]
    assert "harness.validator.pipeline" in GRAPH["harness.validator.cli"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_imports_itself_back() -> None:
    assert cycles(GRAPH) == []


def test_no_package_imports_itself_back() -> None:
    assert cycles(packages_graph()) == []


def test_each_room_imports_only_the_rooms_before_it() -> None:
    assert set(ALLOWED) == {room(name) for name in MODULES}, "a room is missing from ALLOWED"
    wrong = sorted(f"{name} -> {target}" for name, targets in GRAPH.items() for target in targets
                   if room(target) not in ALLOWED[room(name)] | {room(name), BASICS} or
                   (room(name) == BASICS and room(target) != BASICS))
    assert wrong == []


def test_no_room_imports_the_facade() -> None:
    """`harness.evaluate` and `harness.calibration` are the user's; the rooms import the modules behind them."""
    assert sorted(name for name, targets in GRAPH.items() if "harness" in targets) == []
    assert {"harness.evaluation.tuning.api", "harness.evaluation.tuning.calibration"} <= GRAPH["harness"]


def test_the_validator_imports_nothing_else_of_the_harness() -> None:
    assert sorted(f"{n} -> {t}" for n, ts in GRAPH.items() if room(n) == "validator" for t in ts
                  if room(t) != "validator") == []


@pytest.mark.parametrize("name", INTERFACE_ONLY)
def test_the_evaluation_speaks_to_the_system_through_its_interface(name: str) -> None:
    assert [t for t in GRAPH[name] if t.startswith("harness.systems.builtin")] == []


def test_no_module_is_longer_than_250_lines() -> None:
    long = {name: n for name, path in MODULES.items() if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert long == {}


def test_each_package_says_in_one_line_what_it_is_for() -> None:
    """A docstring whose first line is a sentence of its own (the validator's goes on to say what it checks)."""
    for name, path in MODULES.items():
        if path.name == "__init__.py":
            doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
            first = doc.split("\n")[0]
            assert first.endswith(".") and (doc == first or doc.split("\n")[1] == ""), name
