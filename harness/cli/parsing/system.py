"""The options that name the system under test (--system, --system-path, --milvus-uri); where its module lies is
found by the handlers (harness.cli.commands.system_choice)."""


from harness.cli.parsing.errors import Parser
from harness.cli.parsing.paths import path_argument, text_argument
from harness.systems.names import BUILTIN, ENTRY_POINT_GROUP


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


def config_option(parser: Parser) -> None:
    parser.add_argument("--config", type=path_argument, default=None, metavar="FILE",
                        help="the built-in system's configuration overrides as JSON, e.g. {\"rrf_k\": 40, \"lexical\": "
                             "{\"k1\": 1.2}} (one `sweep` wrote): lexical.k1, lexical.b, rrf_k, "
                             "hybrid_candidate_depth; the rest keep their defaults (default: no override)")
