"""A system's worker tells the files a distribution installed by its file list's entries as written, resolving every
entry only when that misses, and says the same as the whole resolved list would."""

import importlib.metadata
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.systems import distributions


def _clear() -> None:
    for kept in (distributions._installed, distributions._inferred, distributions._name, distributions._whole,
                 distributions.providers, distributions.version, distributions._distribution, distributions._listed,
                 distributions._listed_at, distributions._resolved_files):
        kept.cache_clear()


@pytest.fixture
def site_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A directory on sys.path holding the distribution 'toypkg' 1.0: two modules of its package, a file it installed
    outside the directory ('../'), an entry reached through a link, and a module it does not list."""
    site = tmp_path / "site"
    package = site / "toypkg"
    package.mkdir(parents=True)
    for name in ("__init__.py", "listed.py", "unlisted.py", "through_link.py"):
        (package / name).write_text("", encoding="utf-8")
    (site / "alias").symlink_to(package, target_is_directory=True)
    outside = tmp_path / "scripts"
    outside.mkdir()
    (outside / "tool.py").write_text("", encoding="utf-8")
    info = site / "toypkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toypkg\nVersion: 1.0\n", encoding="utf-8")
    (info / "RECORD").write_text("toypkg/__init__.py,,\ntoypkg/listed.py,,\nalias/through_link.py,,\n"
                                 "../scripts/tool.py,,\ntoypkg-1.0.dist-info/RECORD,,\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    _clear()
    yield site
    _clear()


def _whole_list_says(path: Path) -> bool:
    return path in distributions._resolved_files("toypkg")


@pytest.mark.parametrize(("where", "installed"), [
    ("site/toypkg/listed.py", True),  # its entry as written
    ("site/toypkg/through_link.py", True),  # listed only through the link
    ("scripts/tool.py", True),  # listed with '../'
    ("site/toypkg/unlisted.py", False),
])
def test_a_file_is_the_distributions_exactly_when_its_resolved_list_names_it(site_dir: Path, where: str,
                                                                           installed: bool) -> None:
    path = (site_dir.parent / where).resolve()
    assert distributions.installed_by(path, "toypkg") is installed
    assert _whole_list_says(path) is installed


def test_the_providers_of_every_module_are_stdlibs(site_dir: Path, tmp_path: Path) -> None:
    """For every top-level module of this venv, and for a site with a module declared twice, a distribution that
    only infers its modules, one without a RECORD (an egg-info's file list) and a module two distributions share,
    the same distributions in the same order as importlib.metadata.packages_distributions."""
    extra = tmp_path / "extra"
    for name, files in (("twice", {"top_level.txt": "twice\nshared\ntwice\n"}),
                        ("inferred", {"RECORD": "inferred_mod/__init__.py,,\nlone.py,,\nshared/x.py,,\n"}),
                        ("egg", None)):
        info = extra / (f"{name}-2.0.egg-info" if files is None else f"{name}-2.0.dist-info")
        info.mkdir(parents=True)
        (info / ("PKG-INFO" if files is None else "METADATA")).write_text(f"Metadata-Version: 2.1\nName: {name}\n"
                                                                           "Version: 2.0\n", encoding="utf-8")
        for file, text in (files or {"SOURCES.txt": "egg_mod/__init__.py\nsetup.py\n"}).items():
            (info / file).write_text(text, encoding="utf-8")
    sys.path.insert(0, str(extra))
    try:
        _clear()
        expected = importlib.metadata.packages_distributions()
        for top in ("twice", "shared", "inferred_mod", "lone", "egg_mod", "setup", "nothing_provides_this"):
            assert distributions.providers(top) == tuple(expected.get(top, [])), top
        assert distributions.providers("twice") == ("twice", "twice")
        assert distributions.providers("inferred_mod") == ("inferred",) and "egg" in distributions.providers("egg_mod")
        assert {top: distributions.providers(top) for top in expected} == {
            top: tuple(names) for top, names in expected.items()}
    finally:
        sys.path.remove(str(extra))
        _clear()


def test_the_providers_and_version_come_from_the_installed_metadata(site_dir: Path) -> None:
    assert sys.path[0] == str(site_dir)
    assert distributions.providers("toypkg") == ("toypkg",)
    assert distributions.version("toypkg") == "1.0"
    assert distributions.providers("no_such_module_anywhere") == ()
    assert distributions.version("no-such-distribution-anywhere") is None
    assert distributions.installed_by(site_dir / "toypkg" / "listed.py", "no-such-distribution-anywhere") is False


def test_a_distributions_own_files_are_told_without_resolving_its_whole_list() -> None:
    """numpy's modules are answered from its entries as written: its whole list (thousands of files) is never
    resolved for them."""
    import numpy

    _clear()
    try:
        assert distributions.installed_by(Path(numpy.__file__).resolve(), "numpy")
        assert distributions._resolved_files.cache_info().currsize == 0
    finally:
        _clear()


def test_a_file_under_a_site_directory_is_its_distributions_even_behind_an_egg_info_of_its_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An editable install leaves `NAME.egg-info` in the project's directory, which comes first on sys.path when
    Python runs there: asked by name, importlib.metadata answers with it. A file the installed distribution's RECORD
    lists under the site directory (an editable install's finder module) is still that distribution's."""
    site = tmp_path / "site"
    info = site / "toypkg-1.0.dist-info"
    info.mkdir(parents=True)
    (site / "__editable___toypkg_finder.py").write_text("", encoding="utf-8")
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toypkg\nVersion: 1.0\n", encoding="utf-8")
    (info / "top_level.txt").write_text("toypkg\n", encoding="utf-8")
    (info / "RECORD").write_text("__editable___toypkg_finder.py,,\ntoypkg-1.0.dist-info/RECORD,,\n", encoding="utf-8")
    project = tmp_path / "project"
    shadow = project / "toypkg.egg-info"
    shadow.mkdir(parents=True)
    (shadow / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: toypkg\nVersion: 1.0\n", encoding="utf-8")
    (shadow / "top_level.txt").write_text("toypkg\n", encoding="utf-8")
    (shadow / "SOURCES.txt").write_text("toypkg/__init__.py\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.syspath_prepend(str(project))
    _clear()
    try:
        finder = (site / "__editable___toypkg_finder.py").resolve()
        assert Path(str(importlib.metadata.distribution("toypkg")._path)).name == "toypkg.egg-info"  # type: ignore[attr-defined]
        assert distributions.owners_of_file(finder, "__editable___toypkg_finder", [site.resolve()]) == ("toypkg",)
    finally:
        _clear()
