"""Command line: `python -m harness build|run|freeze|bundle|compare|report|export|new-system ...`; exit codes in
`harness.cli.parsing.errors`. The parser (harness.cli.parser) is built from plain constants; a command's handler, and
all it needs, is imported only once its options parsed, so `--help` and a usage error cost no more than the parser."""

import importlib
from collections.abc import Callable
from typing import Any

from harness.cli.parser import build_parser
from harness.cli.parsing.errors import report_failure
from harness.signals import sigterm_raises
from harness.typed_commands import harness_command

__all__ = ["build_parser", "main"]

HANDLERS = {"build": "harness.cli.commands:run_build", "run": "harness.cli.commands:run_evaluation",
            "evaluate": "harness.cli.evaluate_command:run",
            "freeze": "harness.cli.commands:run_freeze", "sweep": "harness.cli.sweep_command:run",
            "replay": "harness.cli.commands:run_replay",
            "new-system": "harness.cli.scaffold.new_system:run", "compare": "harness.cli.publish_commands:run_compare",
            "export": "harness.cli.publish_commands:run_export", "report": "harness.cli.publish_commands:run_report",
            "bundle": "harness.cli.publish_commands:run_bundle", "contract": "harness.cli.contract_command:run"}


def handler(command: str) -> Callable[[Any], int]:
    module, name = HANDLERS[command].split(":")
    found: Callable[[Any], int] = getattr(importlib.import_module(module), name)
    return found


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """`prog`: the command's name in its usage and errors (default: as this process was started, typed_commands)."""
    args = build_parser(prog or harness_command()).parse_args(argv)
    try:
        with sigterm_raises():
            return handler(args.command)(args)
    except BaseException as exc:  # every failure ends in one line and its exit code (harness.cli.parsing.errors)
        if isinstance(exc, SystemExit):
            raise
        return report_failure(exc, debug=args.debug)
