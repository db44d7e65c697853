"""`pytest -n N` in this repository gives a module's tests to one worker (loadscope), so a module's shared
evaluation is built once; a --dist the user names is kept, and a session without workers is left alone."""

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from fixtures.distribution import pytest_cmdline_main

ROOT = Path(__file__).resolve().parent.parent


def test_pytest_with_workers_schedules_by_module() -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "2", "-v",
                           "test_eval/test_source_walk.py"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "scheduling tests via LoadScopeScheduling" in done.stdout, done.stdout[-2000:]


@pytest.mark.parametrize(("given", "expected"), [
    ({"numprocesses": 2, "dist": "no", "distload": False}, "loadscope"),
    ({"numprocesses": "auto", "dist": "no", "distload": False}, "loadscope"),
    ({"numprocesses": 2, "dist": "load", "distload": False}, "load"),  # named on the command line
    ({"numprocesses": 2, "dist": "worksteal", "distload": False}, "worksteal"),
    ({"numprocesses": 2, "dist": "no", "distload": True}, "no"),  # -d/--distload: xdist makes it load
    ({"numprocesses": None, "dist": "no", "distload": False}, "no"),  # no workers asked for
    ({"numprocesses": 0, "dist": "no", "distload": False}, "no"),
])
def test_the_mode_is_loadscope_only_when_workers_are_asked_for_and_no_mode_is_named(given: dict[str, Any],
                                                                                  expected: str) -> None:
    config: Any = SimpleNamespace(option=SimpleNamespace(**given))
    pytest_cmdline_main(config)
    assert config.option.dist == expected


def test_without_xdist_nothing_is_set() -> None:
    config: Any = SimpleNamespace(option=SimpleNamespace())
    pytest_cmdline_main(config)
    assert not hasattr(config.option, "dist")
