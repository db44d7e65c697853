"""This repository's test session. The SciFact suite (options --scifact-*, session fixtures, held-out gate, quality
bars, the evaluation tests) comes from the project's own pytest plugin, `scifact_harness`, registered by installing
the project, exactly as another repository gets it. Beside it: the benchmark suite's ratios, listed at the end of a
run, a module's tests kept on one xdist worker, the rule for tests that need an optional install extra, whether a
browser test may skip (--browser), a session selecting only the suite's markers kept to the suite, and a validator
key of the session's own so the tests never seal verdicts with the user's key.
(Hooks imported here rather than named in `pytest_plugins`: a session rooted in another repository that collects
the installed suite from this clone loads this file as a non-root conftest, where `pytest_plugins` is refused.)"""

import pytest

from fixtures import browser_gate, extras, suite_only, validator_key
from fixtures.bench_ratios import pytest_terminal_summary
from fixtures.browser_gate import chromium, pytest_addoption
from fixtures.distribution import pytest_cmdline_main
from fixtures.extras import pytest_runtest_setup
from fixtures.validator_key import _validator_key, pytest_configure_node, pytest_unconfigure

__all__ = ["_validator_key", "chromium", "pytest_addoption", "pytest_cmdline_main", "pytest_configure",
           "pytest_configure_node", "pytest_runtest_setup", "pytest_terminal_summary", "pytest_unconfigure"]


def pytest_configure(config: pytest.Config) -> None:
    extras.pytest_configure(config)
    browser_gate.pytest_configure(config)
    validator_key.pytest_configure(config)
    suite_only.keep_to_the_suite(config)
