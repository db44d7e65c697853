"""The SciFact harness's pytest plugin, under the name `pytest -p scifact_harness` and the `pytest11` entry point
use (the code lives in `harness.suite`)."""

from harness.suite.plugin import (
    pytest_addoption,
    pytest_configure,
    pytest_ignore_collect,
    pytest_report_header,
    pytest_terminal_summary,
)

pytest_plugins = ["harness.suite.fixtures", "harness.suite.heldout_gate", "harness.suite.quality_bars"]

__all__ = ["pytest_addoption", "pytest_configure", "pytest_ignore_collect", "pytest_report_header",
           "pytest_terminal_summary"]
