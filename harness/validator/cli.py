"""python -m harness.validator AGGREGATE [ROWS] | --comparison COMPARISON | --self-test"""

import json
import sys
import traceback

from .options import FAULT, USAGE, Parser, input_problem, path_argument, usage_problem
from .pipeline import validate, validate_comparison
from .self_test import run_self_test
from .version import VersionAction


def build_parser(prog: str = "scifact-validate") -> Parser:
    parser = Parser(prog=prog, description=__doc__)
    parser.add_argument("--version", action=VersionAction, help="print the version and the validator's source digest")
    parser.add_argument("aggregate", type=path_argument, nargs="?", help="the aggregate JSON (receipt) to validate")
    parser.add_argument("rows", type=path_argument, nargs="?",
                        help="its per-query rows JSONL (default: the rows file beside the aggregate)")
    parser.add_argument("--fixture", type=path_argument, help="corpus fixture (default: the one the receipt names)")
    parser.add_argument("--store-dir", type=path_argument,
                        help="the run's store, when it moved (default: the directory the receipt names)")
    parser.add_argument("--freeze", type=path_argument, help="freeze record (default: the one the receipt names)")
    parser.add_argument("--json", type=path_argument, help="also write the report as JSON here")
    parser.add_argument("--archive", type=path_argument,
                        help="the dataset's archive (e.g. scifact.zip): re-derive every document, query, judgement "
                             "and semantic text from it and compare (default: $SCIFACT_ARCHIVE when it holds the "
                             "dataset's members; without one, the fixture is held to the validator's pins only)")
    parser.add_argument("--ollama-url", metavar="URL",
                        help="the Ollama server to re-embed through, for a fixture embedded by Ollama (default: "
                             "$OLLAMA_HOST); the endpoint written in the fixture is never asked")
    embedding = parser.add_mutually_exclusive_group()
    embedding.add_argument("--full-embedding", action="store_true",
                           help="re-embed every document and query text (the bundle always does); default: a fresh "
                                "sample")
    embedding.add_argument("--no-embedding-check", action="store_true",
                           help="do not re-embed (leaves it not verified)")
    parser.add_argument("--comparison", type=path_argument,
                        help="validate a comparison artifact instead of an aggregate: of a split's modes "
                             "(scifact-comparison-<split>.json) or between systems (scifact-systems-<split>.json), "
                             "as its schema field says")
    parser.add_argument("--self-test", action="store_true", help="validate a generated tiny run, then tampered copies")
    return parser


def main(argv: list[str] | None = None, prog: str = "scifact-validate") -> int:
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    if args.self_test:
        return run_self_test()
    if args.comparison is not None and (args.aggregate is not None or args.fixture or args.freeze or args.store_dir):
        parser.error("--comparison takes no AGGREGATE, ROWS, --fixture, --freeze or --store-dir: it validates the "
                     "aggregates the comparison names, as their receipts locate them")
    if args.aggregate is None and args.comparison is None:
        parser.error("AGGREGATE is required (or --comparison, or --self-test)")
    problem = usage_problem(args.store_dir, args.json, args.archive) or input_problem(
        {"AGGREGATE": args.aggregate, "ROWS": args.rows, "--comparison": args.comparison})
    if problem is not None:
        parser.error(problem)
    try:
        if args.comparison is not None:
            report = validate_comparison(args.comparison, embeddings=not args.no_embedding_check,
                                         full_embedding=args.full_embedding, archive=args.archive,
                                         ollama_url=args.ollama_url)
        else:
            report = validate(args.aggregate, args.rows, fixture=args.fixture, freeze=args.freeze,
                              embeddings=not args.no_embedding_check, full_embedding=args.full_embedding,
                              store_dir=args.store_dir, archive=args.archive, ollama_url=args.ollama_url)
    except Exception:  # a validator fault is not a verdict on the artifact
        traceback.print_exc()
        print(f"VALIDATOR ERROR: the validator itself failed; no verdict (exit {FAULT})")
        return FAULT
    print("\n".join(report.lines()))
    if args.json:
        try:
            args.json.write_text(json.dumps(report.to_dict(), indent=1, default=str) + "\n", encoding="utf-8")
        except OSError as exc:
            print(f"error: --json {args.json}: {exc.strerror or exc}; the verdict above stands, but no report was "
                  "written: choose a file you can write", file=sys.stderr)
            return USAGE
    return report.exit_code()


def console() -> None:
    """The `scifact-validate` console script."""
    sys.exit(main())


if __name__ == "__main__":
    sys.exit(main(prog="python -m harness.validator"))
