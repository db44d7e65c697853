"""The options that name the system under test (--system, --system-path, --milvus-uri), and where its module lies."""

import argparse
from pathlib import Path

from harness.cli import paths as cli_paths
from harness.cli.errors import Parser
from harness.cli.paths import path_argument, text_argument
from harness.cli.summary import SystemChoice
from harness.systems.builtin.system import NAME as BUILTIN
from harness.systems.plugin.location import locate
from harness.systems.registry.select import ENTRY_POINT_GROUP


def system_option(parser: Parser) -> None:
    parser.add_argument("--system", type=text_argument, default=BUILTIN, metavar="NAME",
                        help=f"the system under test: {BUILTIN} (default), a name registered in the "
                             f"{ENTRY_POINT_GROUP!r} entry-point group, or module:attribute")
    parser.add_argument("--system-path", type=path_argument, action="append", default=None, metavar="DIR",
                        help="--system module:attribute: a directory holding the module, looked in when this "
                             "interpreter's path does not hold it (repeatable; default: the current directory)")
    parser.add_argument("--milvus-uri", type=text_argument, default=None, metavar="URI",
                        help="--system milvus: a Milvus server (token from $MILVUS_TOKEN); default: Milvus Lite in "
                             "the store dir")


def system_options(args: argparse.Namespace) -> tuple[tuple[str, str], ...]:
    return () if args.milvus_uri is None else (("uri", args.milvus_uri),)


def system_choice(args: argparse.Namespace) -> SystemChoice:
    """Where the system's module lies, found before any work (a module found nowhere ends here, with the fix)."""
    for given in args.system_path or ():
        cli_paths.existing_directory("--system-path", given)
    candidates = args.system_path or [Path.cwd()]
    return SystemChoice(args.system, locate(args.system, candidates, "--system", "--system-path DIR"))
