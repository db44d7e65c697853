"""A run that differs from its freeze is refused naming the first field that differs and, for every kind of field,
what to do next: restore what was frozen (named), or calibrate again and freeze in a new store and output directory.
The refusals of real runs (a module, an environment variable, a setting, a store) are tested where they happen
(test_plugin_isolation.py, test_plugin_system.py, test_freeze.py); here every kind of field is."""

from typing import Any

import pytest

from harness.evaluation.gates.frozen_difference import AGAIN, Difference, first_difference, next_step

AT_COMMIT = "at the harness's commit {0}: git checkout {0} in its clone"
COMMIT = "0123abcd"
RECORD: dict[str, Any] = {"source": {"git": {"commit": COMMIT}}}


@pytest.mark.parametrize(("frozen", "now", "path", "advice"), [
    ({"system": {"environment": {"KNOB": "sha256:aa"}}}, {"system": {"environment": {"KNOB": None}}},
     "system.environment.KNOB", "set $KNOB back to the value frozen (the freeze binds its sha256, sha256:aa; it is "
                                "unset now)"),
    ({"system": {"environment": {"KNOB": None}}}, {"system": {"environment": {"KNOB": "sha256:bb"}}},
     "system.environment.KNOB", "unset $KNOB, as it was at the freeze"),
    ({"system": {"modules": {"pkg.helper": {"path": "/x/helper.py", "sha256": "sha256:aa"}}}},
     {"system": {"modules": {"pkg.helper": {"path": "/x/helper.py", "sha256": "sha256:bb"}}}},
     "system.modules.pkg.helper.sha256", f"restore module pkg.helper to the file frozen (sha256:aa: its code "
                                         f"{AT_COMMIT.format(COMMIT)})"),
    ({"system": {"modules": {}}}, {"system": {"modules": {"late": {"path": "/x/late.py", "sha256": "sha256:cc"}}}},
     "system.modules.late", "stop loading module late, which the system did not load at the freeze"),
    ({"system": {"modules": {"gone": {"path": "/x/gone.py", "sha256": "sha256:cc"}}}}, {"system": {"modules": {}}},
     "system.modules.gone", "restore the system's code as frozen, which loaded module gone"),
    ({"system": {"distributions": {"numpy": "2.4.6"}}}, {"system": {"distributions": {"numpy": "2.5.0"}}},
     "system.distributions.numpy", "install numpy==2.4.6, the version frozen"),
    ({"system": {"distributions": {}}}, {"system": {"distributions": {"scipy": "1.16.0"}}},
     "system.distributions.scipy", "stop loading scipy, which the system did not load at the freeze"),
    ({"search_config": {"rrf_k": 60}}, {"search_config": {"rrf_k": 30}},
     "search_config.rrf_k", f"set rrf_k back to 60 (the configuration frozen, {AT_COMMIT.format(COMMIT)})"),
    ({"system": {"version": "1.0.0"}}, {"system": {"version": "1.1.0"}},
     "system.version", f"restore the system as frozen: its version was '1.0.0' (its code, configuration and options "
                       f"{AT_COMMIT.format(COMMIT)})"),
    ({"source": {"git": {"commit": COMMIT}}}, {"source": {"git": {"commit": "feed"}}},
     "source.git.commit", f"run the harness frozen ({AT_COMMIT.format(COMMIT)})"),
    ({"source": {"distribution": {"changed": []}}}, {"source": {"distribution": {"changed": ["harness/x.py"]}}},
     "source.distribution.changed", "reinstall the distribution frozen, unchanged (pip install --force-reinstall the "
                                    "same wheel; its changed was [])"),
    ({"corpus": {"fixture_sha256": "sha256:aa"}}, {"corpus": {"fixture_sha256": "sha256:bb"}},
     "corpus.fixture_sha256", "pass --corpus the fixture frozen (its corpus.fixture_sha256: 'sha256:aa')"),
    ({"embedding": {"model": "m1"}}, {"embedding": {"model": "m2"}},
     "embedding.model", "pass --corpus the fixture frozen, embedded as frozen (its embedding.model: 'm1')"),
    ({"store": {"store_sha256": "sha256:aa"}}, {"store": {"store_sha256": "sha256:bb"}},
     "store.store_sha256", "pass --store-dir the store frozen, as it was frozen (store.store_sha256: 'sha256:aa')"),
    ({"host": {"hostname": "lab-1"}}, {"host": {"hostname": "laptop"}},
     "host.hostname", "run on the machine that froze (host.hostname: 'lab-1')"),
    ({"split": {"calibration_count": 100}}, {"split": {"calibration_count": 50}},
     "split.calibration_count", f"run the harness frozen ({AT_COMMIT.format(COMMIT)}), whose split rule was frozen"),
    ({"schema": "scifact-freeze-v1"}, {"schema": "scifact-freeze-v2"},
     "schema", "restore schema to the value frozen, 'scifact-freeze-v1'"),
])
def test_every_difference_says_what_to_do_next(frozen: dict[str, Any], now: dict[str, Any], path: str,
                                               advice: str) -> None:
    difference = first_difference({**RECORD, **frozen}, {**RECORD, **now}, set())
    assert difference is not None and difference.path == path
    said = next_step(difference, {**RECORD, **frozen})
    assert said.startswith(advice) and said.endswith(AGAIN), said


def test_fields_not_compared_are_skipped_and_the_first_difference_is_named() -> None:
    frozen = {"created_at": "a", "store": {"directory_name": "a", "store_sha256": "sha256:aa"},
              "system": {"version": "1"}}
    now = {"created_at": "b", "store": {"directory_name": "b", "store_sha256": "sha256:aa"},
           "system": {"version": "2"}}
    difference = first_difference(frozen, now, {"created_at", "store.directory_name"})
    assert str(difference) == "system.version (frozen '1', now '2')"
    assert first_difference(frozen, {**now, "system": {"version": "1"}}, {"created_at", "store.directory_name"}) is None


SYSTEM_COMMIT = "4567cdef"
INSTALLED = {"available": True, "name": "scifact-harness", "version": "0.1.0", "files_sha256": "sha256:ff"}


@pytest.mark.parametrize(("source", "path", "advice"), [
    # a system in a repository of its own: its fields point at its own commit, never the harness's
    ({"git": {"commit": COMMIT}, "system_tree": {"kind": "a git work tree of its own",
                                                 "git": {"commit": SYSTEM_COMMIT}}},
     "search_config.rrf_k", f"set rrf_k back to 60 (the configuration frozen, at the system's commit {SYSTEM_COMMIT}: "
                            f"git checkout {SYSTEM_COMMIT} in its work tree)"),
    ({"git": {"commit": COMMIT}, "system_tree": {"kind": "a git work tree of its own",
                                                 "git": {"commit": SYSTEM_COMMIT}}},
     "source.system_tree.git.commit", f"restore the system's own work tree as it was frozen (at the system's commit "
                                      f"{SYSTEM_COMMIT}: git checkout {SYSTEM_COMMIT} in its work tree)"),
    # a system's source under no git: bound by its files' digests, which no commit holds
    ({"git": {"commit": COMMIT}, "system_tree": {"kind": "no git work tree: bound by the sha256 of its files only",
                                                 "git": None}},
     "search_config.rrf_k", "set rrf_k back to 60 (the configuration frozen, as the freeze bound it: no git work tree "
                            "holds the system's source, whose files it binds by sha256)"),
    # nothing recorded of where the code came from: said as such
    ({"git": {"available": False}}, "search_config.rrf_k",
     "set rrf_k back to 60 (the configuration frozen, as it was at the freeze)"),
    # an installed harness has no commit: it is named by its distribution, never "commit unknown"
    ({"git": {"available": False}, "distribution": INSTALLED,
      "system_tree": {"kind": "the harness itself", "git": None}},
     "search_config.rrf_k", "set rrf_k back to 60 (the configuration frozen, in scifact-harness 0.1.0 as installed at "
                            "the freeze (files sha256:ff): pip install that wheel, unchanged)"),
])
def test_the_advice_names_the_code_that_was_frozen(source: dict[str, Any], path: str, advice: str) -> None:
    """(The source blocks, the paths and the advice are listed above.)"""
    frozen = {"source": source, "search_config": {"rrf_k": 60}}
    changed = {"source.system_tree.git.commit": {"source": {**source, "system_tree": {
        "kind": "a git work tree of its own", "git": {"commit": "feed"}}}, "search_config": {"rrf_k": 60}},
        "search_config.rrf_k": {"source": source, "search_config": {"rrf_k": 30}}}[path]
    difference = first_difference(frozen, changed, set())
    assert difference is not None and difference.path == path
    said = next_step(difference, frozen)
    assert said.startswith(advice) and said.endswith(AGAIN) and "unknown" not in said, said


def test_a_systems_own_fields_point_at_its_own_commit_and_the_harnesss_at_the_harnesss() -> None:
    frozen = {"source": {"git": {"commit": COMMIT}, "system_tree": {"kind": "a git work tree of its own",
                                                                    "git": {"commit": SYSTEM_COMMIT}}}}
    system = next_step(Difference("system.version", "1.0.0", "1.1.0"), frozen)
    assert f"at the system's commit {SYSTEM_COMMIT}" in system and COMMIT not in system
    split = next_step(Difference("split.calibration_count", 100, 50), frozen)
    assert AT_COMMIT.format(COMMIT) in split and SYSTEM_COMMIT not in split
