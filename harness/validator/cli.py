"""python -m harness.validator AGGREGATE [ROWS] | --comparison COMPARISON | --self-test"""

import json
import sys
import traceback
from collections.abc import Mapping
from pathlib import Path

from .check_aggregate import check_aggregate, check_artifact_files
from .check_bindings import (
    check_config,
    check_corpus,
    check_freeze,
    check_receipt_identity,
    check_split_and_queries,
)
from .check_comparison import check_comparison
from .check_dense import check_query_vectors, fixture_query_vectors
from .check_embeddings import check_embeddings
from .check_environment import check_environment
from .check_history import check_history
from .check_replay import check_replay, load_replay
from .check_rows import check_row_schemas, check_rows
from .check_store import check_store
from .context import InputError, load
from .options import FAULT, USAGE, Parser, path_argument, usage_problem
from .report import Report
from .strict_json import StrictJSONError


def validate(aggregate: Path, rows: Path | None = None, *, fixture: Path | None = None, freeze: Path | None = None,
             embeddings: bool = True, full_embedding: bool = False, store_dir: Path | None = None) -> Report:
    report = Report(str(aggregate))
    try:
        ctx = load(aggregate, rows, fixture, freeze, store_dir)
    except StrictJSONError as exc:
        report.fail("json.strict", "artifacts parse as strict JSON (no NaN, Infinity or duplicate keys)",
                    "strict JSON", str(exc))
        return report
    except InputError as exc:
        report.fail("inputs", "the artifacts named exist", "present", str(exc))
        return report
    report.ok("json.strict", "aggregate and rows parse as strict JSON")
    check_artifact_files(ctx, report)
    if report.failed or not check_row_schemas(ctx, report):
        return report  # malformed artifacts: the checks below read the fields the schemas require
    check_rows(ctx, report)
    check_aggregate(ctx, report)
    if check_corpus(ctx, report):
        check_split_and_queries(ctx, report)
        live = check_store(ctx, report)
        vectors = fixture_query_vectors(ctx)
        check_query_vectors(ctx, report, vectors)
        texts = {q["query_id"]: q["text"] for q in ctx.fixture["queries"]} if ctx.fixture else {}
        check_replay(ctx, report, load_replay(ctx, live) if live else None, vectors, texts)
    check_receipt_identity(ctx, report)
    check_config(ctx, report)
    check_freeze(ctx, report)
    check_history(ctx, report)
    check_environment(ctx, report)
    if embeddings:
        check_embeddings(ctx, report, full=full_embedding)
    else:
        report.unverified("embeddings.model", "skipped on request (--no-embedding-check)")
    return report


def validate_comparison(comparison: Path, *, artifacts_dir: Path | None = None, embeddings: bool = True,
                        full_embedding: bool = False, known: Mapping[str, Report] | None = None) -> Report:
    """A comparison artifact, recomputed from its rows; each input aggregate validated in full (or its report taken
    from `known`, keyed by the aggregate's sha256, when this process validated it already)."""
    return check_comparison(comparison, lambda aggregate: validate(aggregate, embeddings=embeddings,
                                                                   full_embedding=full_embedding),
                            artifacts_dir=artifacts_dir, known=known)


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="python -m harness.validator", description=__doc__)
    parser.add_argument("aggregate", type=path_argument, nargs="?")
    parser.add_argument("rows", type=path_argument, nargs="?")
    parser.add_argument("--fixture", type=path_argument, help="corpus fixture (default: the one the receipt names)")
    parser.add_argument("--store-dir", type=path_argument,
                        help="the run's store, when it moved (default: the directory the receipt names)")
    parser.add_argument("--freeze", type=path_argument, help="freeze record (default: the one the receipt names)")
    parser.add_argument("--json", type=path_argument, help="also write the report as JSON here")
    parser.add_argument("--full-embedding", action="store_true",
                        help="re-embed every document and query text (the bundle always does); default: a fresh sample")
    parser.add_argument("--no-embedding-check", action="store_true", help="do not re-embed (leaves it not verified)")
    parser.add_argument("--comparison", type=path_argument,
                        help="validate a comparison artifact (scifact-comparison-<split>.json) instead of an aggregate")
    parser.add_argument("--self-test", action="store_true", help="validate a generated tiny run, then tampered copies")
    args = parser.parse_args(argv)
    if args.self_test:
        from .self_test import run_self_test

        return run_self_test()
    if args.comparison is not None and (args.aggregate is not None or args.fixture or args.freeze or args.store_dir):
        parser.error("--comparison takes no AGGREGATE, ROWS, --fixture, --freeze or --store-dir: it validates the "
                     "aggregates the comparison names, as their receipts locate them")
    if args.aggregate is None and args.comparison is None:
        parser.error("AGGREGATE is required (or --comparison, or --self-test)")
    problem = usage_problem(args.store_dir, args.json)
    if problem is not None:
        parser.error(problem)
    try:
        if args.comparison is not None:
            report = validate_comparison(args.comparison, embeddings=not args.no_embedding_check,
                                         full_embedding=args.full_embedding)
        else:
            report = validate(args.aggregate, args.rows, fixture=args.fixture, freeze=args.freeze,
                              embeddings=not args.no_embedding_check, full_embedding=args.full_embedding,
                              store_dir=args.store_dir)
    except Exception:  # a validator fault is not a verdict on the artifact
        traceback.print_exc()
        print("VALIDATOR ERROR: the validator itself failed; no verdict (exit 4)")
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


if __name__ == "__main__":
    sys.exit(main())
