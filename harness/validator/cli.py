"""The validator's command line: one or many aggregates, a comparison, or a bundle as its reader, in one process."""

import argparse
import json
import os
import sys
import traceback
from pathlib import Path

from .bundle_reader import BundleOptions, bundle_problem, validate_bundle
from .core.report import Report
from .dataset.named import check_named
from .embedding.model_at_hand import offer_models
from .options import (
    ELIGIBLE,
    FAILED,
    FAULT,
    NOT_VERIFIED,
    USAGE,
    Parser,
    input_problem,
    path_argument,
    subjects_of,
    usage_problem,
)
from .pipeline import validate_comparison
from .self_test import run_self_test
from .started import validator_name
from .stored import Options, Subject, validate_all
from .version import VersionAction

EXIT_ORDER = (ELIGIBLE, NOT_VERIFIED, FAILED)  # eligible, not verified, failed: several aggregates exit with the worst
DESCRIPTION = """\
The independent validator of scifact-harness's results: it shares no code with
the harness, recomputes every ranking, metric and digest of a run from its
primary data (the fixture, the store, the rows, the dataset's archive), and
says whether each result is ELIGIBLE for a claim (exit 0), NOT ELIGIBLE (1) or
NOT VERIFIED (7), naming each check.

What it validates:
  AGGREGATE [ROWS] ...  runs, by their .aggregate.json files
  --comparison FILE     a comparison, and every run it read
  --bundle DIR          a publication bundle, as its reader
  --self-test           a generated tiny run, then tampered copies
e.g. {prog} work-dir/results/scifact-*-heldout.aggregate.json"""


def build_parser(prog: str | None = None) -> Parser:
    """`prog`: the validator's name in its usage and errors (default: as this process was started)."""
    prog = prog or validator_name()
    parser = Parser(prog=prog, description=DESCRIPTION.format(prog=prog),
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action=VersionAction, help="print the version and the validator's source digest")
    parser.add_argument("inputs", type=path_argument, nargs="*", metavar="AGGREGATE [ROWS]",
                        help="aggregates to validate, each optionally followed by its rows (a .jsonl file); several "
                             "are validated in one process (the model loaded once)")
    parser.add_argument("--fixture", type=path_argument,
                        help="corpus fixture (default: the one the receipt names; with --bundle, the bundle's)")
    parser.add_argument("--store-dir", type=path_argument,
                        help="the run's store, when it moved (default: the directory the receipt names; with "
                             "--bundle, the bundle's copy)")
    parser.add_argument("--freeze", type=path_argument, help="freeze record (default: the one the receipt names)")
    parser.add_argument("--json", type=path_argument,
                        help="also write the report as JSON here; with several aggregates, a directory that gets "
                             "one NAME.validation.json per aggregate")
    parser.add_argument("--archive", type=path_argument,
                        help="the dataset's archive (e.g. scifact.zip): re-derive every document, query, judgement "
                             "and semantic text from it and compare (default: $SCIFACT_ARCHIVE when it holds the "
                             "dataset's members; without one, the fixture is held to the validator's pins only)")
    parser.add_argument("--dataset", metavar="NAME",
                        help="the dataset the artifacts must be runs of, by the name their files carry (scifact, "
                             "nfcorpus, trec-covid, a collection's own name): a check, dataset.named, held to the "
                             "dataset the validator establishes itself")
    parser.add_argument("--ollama-url", metavar="URL",
                        help="the Ollama server to re-embed through, for a fixture embedded by Ollama (default: "
                             "$OLLAMA_HOST); the endpoint written in the fixture is never asked")
    parser.add_argument("--model", type=path_argument, action="append", metavar="DIR",
                        help="a sentence-transformers model directory to re-embed with, for a fixture embedded by a "
                             "model other than the packaged one (several allowed); it is held to every file the "
                             "fixture declares (default: where the run placed it, a bundle's carried copy, or the "
                             "Hugging Face cache at the declared commit)")
    embedding = parser.add_mutually_exclusive_group()
    embedding.add_argument("--full-embedding", action="store_true",
                           help="re-embed every document and query text (the bundle always does; kept once per "
                                "fixture, verifier and embedding code); default: a fresh sample")
    embedding.add_argument("--no-embedding-check", action="store_true",
                           help="do not re-embed (leaves it not verified)")
    parser.add_argument("--verdicts", type=path_argument, metavar="DIR",
                        help="the directory whose validation/ folder keeps the stored verdicts (default: each "
                             "aggregate's own directory)")
    parser.add_argument("--revalidate", action="store_true",
                        help="validate again even when a stored verdict matches (the new verdict is stored)")
    parser.add_argument("--comparison", type=path_argument,
                        help="validate a comparison artifact instead of an aggregate: of a split's modes "
                             "(<dataset>-comparison-<split>.json) or between systems (<dataset>-systems-<split>.json), "
                             "as its schema field says")
    parser.add_argument("--bundle", type=path_argument, metavar="DIR",
                        help="validate a publication bundle as its reader: MANIFEST.json against every file, then "
                             "every aggregate and comparison in it with every text re-embedded here (nothing kept or "
                             "stored is reused), from the fixture, stores and system source the bundle carries; with "
                             "--archive, or $SCIFACT_ARCHIVE")
    parser.add_argument("--self-test", action="store_true", help="validate a generated tiny run, then tampered copies")
    return parser


def with_file(verdict: str, report: Report) -> str:
    """The verdict line with the file it judges, relative to here when it lies below."""
    subject = Path(report.subject)
    shown = os.path.relpath(subject) if subject.is_absolute() and subject.is_relative_to(Path.cwd()) else subject
    return f"{verdict} — {shown}"


def _write(path: Path, report: Report) -> str | None:
    try:
        path.write_text(json.dumps(report.to_dict(), indent=1, default=str) + "\n", encoding="utf-8")
    except OSError as exc:
        return (f"error: --json {path}: {exc.strerror or exc}; the verdict above stands, but no report was written: "
                "choose a file you can write")
    return None


def _bundle(parser: Parser, args: argparse.Namespace) -> int:
    """--bundle DIR: one verdict line per artifact and one for the bundle (exit 0 only when all are eligible)."""
    if args.inputs or args.comparison or args.freeze or args.json or args.verdicts or args.no_embedding_check:
        parser.error("--bundle takes no AGGREGATE, --comparison, --freeze, --json, --verdicts or --no-embedding-check: "
                     "it validates every artifact the bundle holds, against the bundle's freeze.json, with every text "
                     "re-embedded")
    problem = bundle_problem(args.bundle) or usage_problem(args.store_dir, None, args.archive)
    if problem is None and args.fixture is not None and not args.fixture.is_file():
        problem = f"--fixture {args.fixture} is not a file; name the corpus fixture's JSON file"
    if problem is not None:
        parser.error(problem)
    options = BundleOptions(archive=args.archive, fixture=args.fixture, store_dir=args.store_dir,
                            ollama_url=args.ollama_url, dataset=args.dataset)
    try:
        lines, code = validate_bundle(args.bundle, options, lambda line: print(line, file=sys.stderr, flush=True))
    except Exception:  # a validator fault is not a verdict on the bundle
        traceback.print_exc()
        print(f"VALIDATOR ERROR: the validator itself failed; no verdict (exit {FAULT})")
        return FAULT
    print("\n".join(lines))
    return code


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    if args.self_test:
        return run_self_test()
    for model in args.model or ():
        if not (model / "modules.json").is_file():
            parser.error(f"--model {model} is not a sentence-transformers model directory (no modules.json); name the "
                         "directory the model was saved to")
    offer_models(args.model or ())
    if args.bundle is not None:
        return _bundle(parser, args)
    if args.comparison is not None and (args.inputs or args.fixture or args.freeze or args.store_dir):
        parser.error("--comparison takes no AGGREGATE, ROWS, --fixture, --freeze or --store-dir: it validates the "
                     "aggregates the comparison names, as their receipts locate them")
    if not args.inputs and args.comparison is None:
        parser.error("AGGREGATE is required (or --comparison, or --self-test)")
    pairs, problem = subjects_of(args.inputs)
    subjects = [Subject(aggregate, rows, args.freeze, args.verdicts) for aggregate, rows in pairs]
    several = len(subjects) > 1
    named: list[tuple[str, Path | None]] = [("--comparison", args.comparison)]
    for aggregate, rows in pairs:
        named += [("AGGREGATE", aggregate), ("ROWS", rows)]
    problem = problem or usage_problem(args.store_dir, args.json, args.archive, several=several) or input_problem(named)
    if problem is not None:
        parser.error(problem)
    options = Options(embeddings=not args.no_embedding_check, full_embedding=args.full_embedding,
                      fixture=args.fixture, store_dir=args.store_dir, archive=args.archive, ollama_url=args.ollama_url,
                      models=tuple(args.model or ()))
    try:
        if args.comparison is not None:
            reports = [validate_comparison(args.comparison, embeddings=options.embeddings,
                                           full_embedding=options.full_embedding, archive=args.archive,
                                           ollama_url=args.ollama_url)]
        else:
            reports = validate_all(subjects, options, reuse=not args.revalidate)
    except Exception:  # a validator fault is not a verdict on the artifact
        traceback.print_exc()
        print(f"VALIDATOR ERROR: the validator itself failed; no verdict (exit {FAULT})")
        return FAULT
    malformed = [report.input_problem for report in reports if report.input_problem is not None]
    reports = [report for report in reports if report.input_problem is None]  # no verdict on what is not its kind
    if args.dataset is not None:
        for report in reports:
            check_named(report, args.dataset)
    for report in reports:
        lines = report.lines()
        print("\n".join(([f"== {report.subject}"] if several else []) + lines[:-1] + [with_file(lines[-1], report)]))
    if args.json:
        targets = [args.json / (Path(r.subject).name.removesuffix(".aggregate.json") + ".validation.json")
                   for r in reports] if several else [args.json] * len(reports)  # none for a malformed input
        failed = [error for target, report in zip(targets, reports, strict=True)
                  if (error := _write(target, report)) is not None]
        if failed:
            print(failed[0], file=sys.stderr)
            return USAGE
    if malformed:  # input you can fix, named with its problem and the fix, after the verdicts on the others
        print("\n".join(f"error: {problem}" for problem in malformed), file=sys.stderr)
        return USAGE
    return max((report.exit_code() for report in reports), key=EXIT_ORDER.index)


def console() -> None:
    """The `scifact-validate` console script."""
    sys.exit(main())


if __name__ == "__main__":
    sys.exit(main())
