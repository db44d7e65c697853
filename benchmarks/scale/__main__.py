"""`python -m benchmarks.scale [--sizes N ...] [--out DIR] [--docs docs]`: measure, then write the figures, the plot
and the table (docs/scale.md, between its figure markers)."""

import argparse
import json
import sys
from pathlib import Path

from benchmarks.scale.measure import Limits
from benchmarks.scale.phases import SYSTEMS
from benchmarks.scale.run import Plan, run


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.scale", description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--systems", nargs="+", choices=SYSTEMS, default=list(SYSTEMS))
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--memory-limit-gib", type=float, default=8.0)
    parser.add_argument("--phase-limit-seconds", type=float, default=900.0)
    parser.add_argument("--out", type=Path, default=Path("work-dir/scale"), help="where figures and stores go")
    parser.add_argument("--docs", type=Path, help="also write the plot and the table into DOCS/scale.md")
    parser.add_argument("--report-only", type=Path, nargs="+", metavar="FIGURES",
                        help="measure nothing: merge these scale.json files (a later one's entry of the same system "
                             "and size wins) and write the report into --docs")
    args = parser.parse_args(argv)
    if any(size < 2 for size in args.sizes) or args.queries < 1:
        parser.error("every size needs at least 2 documents, and --queries at least 1")
    if args.report_only:
        from benchmarks.scale.report import merged, write_report

        if args.docs is None:
            parser.error("--report-only needs --docs")
        for path in write_report(merged([json.loads(p.read_text(encoding="utf-8")) for p in args.report_only]),
                                 args.docs):
            print(f"wrote {path}")
        return 0
    limits = Limits(int(args.memory_limit_gib * 2 ** 30), args.phase_limit_seconds)
    document = run(Plan(tuple(sorted(set(args.sizes))), tuple(args.systems), args.queries, args.seed, limits),
                   args.out)
    print(f"figures: {args.out / 'scale.json'}")
    if args.docs is not None:
        from benchmarks.scale.report import write_report

        for path in write_report(document, args.docs):
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
