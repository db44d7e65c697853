"""One subcommand's parser, as every command has it: its help, and `--debug` after the command name too."""

import argparse
from typing import TypeAlias

from harness.cli.parsing.errors import Parser

Commands: TypeAlias = "argparse._SubParsersAction[Parser]"


def command(commands: Commands, name: str, help: str) -> Parser:
    parser: Parser = commands.add_parser(name, help=help)
    parser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show the traceback of an error")
    return parser
