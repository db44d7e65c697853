"""python -m harness.validator AGGREGATE [ROWS] | --self-test"""

import argparse
import json
import sys
import traceback
from pathlib import Path

from .check_aggregate import check_aggregate, check_artifact_files
from .check_bindings import (
    check_config,
    check_corpus,
    check_freeze,
    check_receipt_identity,
    check_split_and_queries,
    check_store,
)
from .check_dense import check_exact_sample
from .check_embeddings import check_embeddings
from .check_environment import check_environment
from .check_history import check_history
from .check_rows import check_row_schemas, check_rows
from .context import InputError, load
from .report import Report
from .strict_json import StrictJSONError


def validate(aggregate: Path, rows: Path | None = None, *, fixture: Path | None = None, freeze: Path | None = None,
             embeddings: bool = True) -> Report:
    report = Report(str(aggregate))
    try:
        ctx = load(aggregate, rows, fixture, freeze)
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
        check_store(ctx, report)
        check_exact_sample(ctx, report)
    check_receipt_identity(ctx, report)
    check_config(ctx, report)
    check_freeze(ctx, report)
    check_history(ctx, report)
    check_environment(ctx, report)
    if embeddings:
        check_embeddings(ctx, report)
    else:
        report.unverified("embeddings.model", "skipped on request (--no-embedding-check)")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.validator", description=__doc__)
    parser.add_argument("aggregate", type=Path, nargs="?")
    parser.add_argument("rows", type=Path, nargs="?")
    parser.add_argument("--fixture", type=Path, help="corpus fixture (default: the one the receipt names)")
    parser.add_argument("--freeze", type=Path, help="freeze record (default: the one the receipt names)")
    parser.add_argument("--json", type=Path, help="also write the report as JSON here")
    parser.add_argument("--no-embedding-check", action="store_true", help="do not re-embed (leaves it not verified)")
    parser.add_argument("--self-test", action="store_true", help="validate a generated tiny run, then tampered copies")
    args = parser.parse_args(argv)
    if args.self_test:
        from .self_test import run_self_test

        return run_self_test()
    if args.aggregate is None:
        parser.error("AGGREGATE is required (or --self-test)")
    try:
        report = validate(args.aggregate, args.rows, fixture=args.fixture, freeze=args.freeze,
                          embeddings=not args.no_embedding_check)
    except Exception:  # a validator fault is not a verdict on the artifact
        traceback.print_exc()
        print("VALIDATOR ERROR: the validator itself failed; no verdict (exit 4)")
        return 4
    for check in report.checks:
        print(check.line())
    print(report.verdict())
    if args.json:
        args.json.write_text(json.dumps(report.to_dict(), indent=1, default=str) + "\n", encoding="utf-8")
    return report.exit_code()


if __name__ == "__main__":
    sys.exit(main())
