"""One table of exit codes for both tools (docs/exit-codes.md): the codes the harness and the validator define are
the table's, each command answers --help with 0 and an unknown option or a missing input with 2, and every option
and positional argument of both tools says what it is for."""

import argparse
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from harness import errors
from harness.cli.app import build_parser as harness_parser
from harness.cli.app import main as harness_main
from harness.signals import INTERRUPTED_EXIT, TERMINATED_EXIT
from harness.validator import options as validator_options
from harness.validator.cli import build_parser as validator_parser
from harness.validator.cli import main as validator_main
from harness.validator.core.report import Report

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "docs" / "exit-codes.md"
COMMANDS = ("build", "run", "freeze", "bundle", "replay", "compare", "report", "export", "new-system")


def documented() -> dict[int, str]:
    """code -> who returns it ("both", "harness", "validator", "harness (`run`)"), from the table."""
    text = TABLE.read_text(encoding="utf-8")
    table = text.split("<!-- exit-codes:start -->")[1].split("<!-- exit-codes:end -->")[0]
    codes: dict[int, str] = {}
    for line in table.splitlines()[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        for code in re.findall(r"\d+", cells[0]):
            codes[int(code)] = cells[2]
    return codes


def test_the_table_holds_every_code_of_both_tools_and_who_returns_it() -> None:
    table = documented()
    harness_codes = {0, errors.CHECK_FAILED, errors.USAGE, errors.REFUSED, errors.ENVIRONMENT, errors.INTERNAL,
                     errors.SYSTEM_FAILED, errors.NOT_VERIFIED, INTERRUPTED_EXIT, TERMINATED_EXIT}
    validator_codes = {validator_options.ELIGIBLE, validator_options.FAILED, validator_options.USAGE,
                       validator_options.ENVIRONMENT, validator_options.FAULT, validator_options.NOT_VERIFIED}
    assert set(table) == harness_codes | validator_codes | {INTERRUPTED_EXIT, TERMINATED_EXIT}
    for code in harness_codes & validator_codes - {errors.CHECK_FAILED, errors.NOT_VERIFIED}:
        assert table[code] == "both", code
    for code in harness_codes - validator_codes - {INTERRUPTED_EXIT, TERMINATED_EXIT}:
        assert table[code].startswith("harness"), code
    for code in validator_codes - harness_codes:
        assert table[code] == "validator", code
    for code in (errors.CHECK_FAILED, errors.NOT_VERIFIED):  # a run's own end-of-run verdict exits as the validator's
        assert table[code] == "validator; harness (`run`, its own verdict)", code
    assert (errors.CHECK_FAILED, errors.USAGE, errors.ENVIRONMENT, errors.INTERNAL, errors.NOT_VERIFIED) == (
        validator_options.FAILED, validator_options.USAGE, validator_options.ENVIRONMENT, validator_options.FAULT,
        validator_options.NOT_VERIFIED)


def test_a_validation_report_exits_with_the_table_s_codes() -> None:
    report = Report(subject="x")
    report.ok("rows.schema", "as the schema says")
    assert report.exit_code() == validator_options.ELIGIBLE
    report.unverified("embeddings.model", "skipped")
    assert report.exit_code() == validator_options.NOT_VERIFIED
    report.fail("rows.schema", "forged")
    assert report.exit_code() == validator_options.FAILED


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=120, check=False, cwd=ROOT)


def _in_process(main: Callable[..., int], argv: list[str], prog: str,
                capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """The exit code, stdout and stderr of `main(argv)` in this process (argparse exits through SystemExit)."""
    try:
        code = main(argv, prog=prog)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("command", COMMANDS)
def test_every_harness_command_answers_help_and_refuses_an_unknown_option(
        command: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _in_process(harness_main, [command, "--help"], "python -m harness", capsys)
    assert code == 0 and f"usage: python -m harness {command}" in out
    code, out, err = _in_process(harness_main, [command, "--no-such-option"], "python -m harness", capsys)
    assert code == errors.USAGE and not out, err
    assert err.startswith(f"error: python -m harness {command}: ") and err.endswith(
        f"usage: python -m harness {command} --help\n"), err


@pytest.mark.parametrize("argv", [["--no-such-option"], ["missing-aggregate.json"], ["--comparison", "missing.json"],
                                  ["--help"]])
def test_the_validator_s_usage_codes(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    given = [str(tmp_path / a) if a.endswith(".json") else a for a in argv]
    code, out, err = _in_process(validator_main, given, "python -m harness.validator", capsys)
    expected = 0 if argv == ["--help"] else validator_options.USAGE
    assert code == expected, out + err
    if expected:
        assert err.startswith("error: python -m harness.validator: ") and not out


@pytest.mark.parametrize("module", ["harness", "harness.validator"])
def test_the_processes_exit_with_those_codes(module: str) -> None:
    """The same, as a process: `python -m` hands main's code to the shell, and names itself as it was started."""
    assert _run("-m", module, "--help").returncode == 0
    done = _run("-m", module, "--no-such-option")
    typed = os.path.relpath(sys.executable, ROOT) if Path(sys.executable).is_relative_to(ROOT) else sys.executable
    assert done.returncode == 2 and not done.stdout and done.stderr.startswith(f"error: {typed} -m {module}: "), done


def _actions(parser: argparse.ArgumentParser, path: str) -> Iterator[tuple[str, argparse.Action]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _actions(sub, f"{path} {name}")
        if not isinstance(action, argparse._HelpAction):
            yield path, action


def test_every_option_and_argument_of_both_tools_is_explained() -> None:
    unexplained = [f"{path}: {'/'.join(action.option_strings) or action.dest}"
                   for parser, name in ((harness_parser(), "scifact-harness"), (validator_parser(), "scifact-validate"))
                   for path, action in _actions(parser, name) if not (action.help or "").strip()]
    assert unexplained == []
