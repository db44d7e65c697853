"""What a finished step prints next, line by line: the bundle each output directory suggests is its own (two systems'
evaluations in one work dir never suggest the same), and the freeze's line names the source the record binds (an
installed harness by its distribution, a clone by its commit, a system of its own by its own tree). The commands'
forms are test_typed_forms.py's; both lines as a user's installed harness prints them, test_installed_suite.py's."""

import sys
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from harness.cli.freeze_line import frozen_line
from harness.cli.summary import SystemChoice, bundle_directory, next_step

HARNESS = ["harness/__main__.py"]  # sys.argv as `python -m harness` leaves it


@pytest.mark.parametrize(("output", "bundle"), [
    ("work-dir/results", "work-dir/bundle"),
    ("work-dir/results-my_search-SYSTEM", "work-dir/bundle-my_search-SYSTEM"),
    ("work-dir/results-tfidf", "work-dir/bundle-tfidf"),
    ("elsewhere/evaluation", "elsewhere/evaluation-bundle"),
])
def test_each_output_directory_suggests_a_bundle_of_its_own_beside_it(
        output: str, bundle: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert bundle_directory(Path(output)) == tmp_path / bundle


def test_two_systems_in_one_work_dir_are_told_two_bundles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    work = Path("work-dir")
    mine = SystemChoice("my_search:SYSTEM", tmp_path)
    with mock.patch.object(sys, "argv", HARNESS):
        told = [next_step("heldout", work_dir=work, corpus=work / "scifact-corpus.json", store_dir=work / store,
                          output_dir=work / results, system=system)
                for store, results, system in (("store", "results", SystemChoice()),
                                               ("store-my_search-SYSTEM", "results-my_search-SYSTEM", mine))]
    bundles = [line.split("--bundle-dir ")[1].split()[0] for text in told for line in text.splitlines()
               if "--bundle-dir" in line]
    assert bundles == ["work-dir/bundle", "work-dir/bundle-my_search-SYSTEM"], told


def _record(**source: Any) -> dict[str, Any]:
    return {"freeze_sha256": "sha256:f", "modes": ["vector_only"], "system": {"name": "mine"},
            "source": {"dirty_state_policy": "clean work tree required", **source}}


INSTALLED = {"available": True, "name": "scifact-harness", "version": "0.1.0", "files_sha256": "sha256:abc"}
NOT_INSTALLED = {"available": False}


@pytest.mark.parametrize(("source", "said"), [
    ({"git": {"available": False}, "distribution": INSTALLED, "system_tree": None},
     "source scifact-harness 0.1.0, installed (files sha256:abc) (clean"),
    ({"git": {"available": True, "commit": "c0ffee"}, "distribution": NOT_INSTALLED, "system_tree": None},
     "source c0ffee (clean"),
    ({"git": {"available": False}, "distribution": INSTALLED,
      "system_tree": {"kind": "a git work tree of its own", "git": {"commit": "beef", "dirty": False}}},
     "source scifact-harness 0.1.0, installed (files sha256:abc); system mine source: git commit beef (clean"),
    ({"git": {"available": True, "commit": "c0ffee"}, "distribution": NOT_INSTALLED,
      "system_tree": {"kind": "no git work tree: bound by the sha256 of its files only", "git": None}},
     "source c0ffee; system mine source: no git work tree: bound by the sha256 of its files only (clean"),
])
def test_the_freeze_line_names_the_source_the_record_binds(source: dict[str, Any], said: str) -> None:
    line = frozen_line(Path("/elsewhere/freeze.json"), _record(**source), 4)
    assert line == (f"frozen: /elsewhere/freeze.json (sha256:f); modes vector_only; {said} work tree required); run "
                    "ledger position 4")
    assert "None" not in line


def test_the_built_in_system_s_source_is_the_harness_s() -> None:
    record = _record(git={"available": True, "commit": "c0ffee"}, distribution=NOT_INSTALLED,
                     system_tree={"kind": "a git work tree of its own", "git": {"commit": "beef", "dirty": False}})
    record["system"]["name"] = "builtin"
    assert "; modes vector_only; source c0ffee (clean work tree required)" in frozen_line(Path("f"), record, 1)
