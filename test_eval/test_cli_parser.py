"""The command line's parser is built from plain constants: `--help` and a usage error import no corpus, embedder,
system or statistics library, and every command it parses has a handler that imports."""

import argparse
import subprocess
import sys

from fixtures.cli import ROOT
from harness.cli.app import HANDLERS, build_parser, handler

HEAVY = ("numpy", "scipy", "requests", "jsonschema", "bm25s", "torch", "sentence_transformers", "harness.validator",
         "harness.systems.builtin.system", "harness.evaluation.runner")


def _commands() -> set[str]:
    parser = build_parser()
    [subparsers] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return set(subparsers.choices)


def test_every_parsed_command_has_a_handler_that_imports() -> None:
    assert _commands() == set(HANDLERS)
    for command in HANDLERS:
        assert callable(handler(command)), command


def test_help_imports_only_the_parser() -> None:
    probe = ("import sys\nfrom harness.cli.app import main\n"
             "for argv in (['--help'], *([c, '--help'] for c in sys.argv[1:])):\n"
             "    try:\n        main(argv, prog='scifact-harness')\n"
             "    except SystemExit as done:\n        assert done.code == 0, argv\n"
             f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", probe, *sorted(HANDLERS)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]", done.stdout.splitlines()[-1]
    assert "usage: scifact-harness run" in done.stdout and "--hypothesis-baseline" in done.stdout
