"""Which files a source digest covers: the harness's walk (its own source, a system's package) and the validator's
each find exactly what `rglob('*')` under the stated rule finds (every .py and .json file, none under __pycache__,
a linked file counted, a linked directory not entered), in the same order."""

from pathlib import Path

import pytest

from harness.source_digest import files_under
from harness.validator.core import source_tree


def _by_the_rule(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*")
                  if p.is_file() and p.suffix in {".py", ".json"} and "__pycache__" not in p.parts)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "harness"
    for name in ("__init__.py", "a/b/c.py", "a/data.json", "a/notes.txt", "a/__pycache__/c.cpython-311.pyc",
                 "a/__pycache__/stray.py", "z/.hidden.py", "z/x.pyi", "z/x.py.orig", "z/json"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(name, encoding="utf-8")
    (root / "a/b/deep.json").mkdir()  # a directory named like a source file
    outside = tmp_path / "elsewhere"
    (outside / "inner").mkdir(parents=True)
    (outside / "inner/linked_dir_file.py").write_text("x", encoding="utf-8")
    (outside / "target.py").write_text("y", encoding="utf-8")
    (root / "linked_dir").symlink_to(outside / "inner", target_is_directory=True)
    (root / "z/linked.py").symlink_to(outside / "target.py")
    (root / "z/dangling.py").symlink_to(outside / "missing.py")
    return root


def test_the_harness_walk_finds_what_the_rule_finds(tree: Path) -> None:
    found = files_under(tree)
    assert found == _by_the_rule(tree)
    assert {p.relative_to(tree).as_posix() for p in found} == {
        "__init__.py", "a/b/c.py", "a/data.json", "z/.hidden.py", "z/linked.py"}


def test_the_validator_walk_finds_what_the_rule_finds(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(source_tree, "HARNESS_DIR", tree)
    assert source_tree.harness_source_files() == _by_the_rule(tree)
    digest, count = source_tree.harness_source_state()
    assert (digest, count) == (source_tree.harness_source_digest(), 5)


def test_both_walks_find_the_harness_source_the_rule_finds() -> None:
    root = Path(source_tree.HARNESS_DIR)
    assert files_under(root) == source_tree.harness_source_files() == _by_the_rule(root)
