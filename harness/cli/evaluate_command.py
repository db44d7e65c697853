"""`evaluate RUN_FILE`: a run made outside the harness evaluated as `run` evaluates a system, its rankings read from
the file (harness/systems/runfile/) and its receipts saying so."""

import argparse
import sys

from harness.cli.commands import evaluate_split
from harness.cli.parsing import paths as cli_paths
from harness.cli.summary import SystemChoice
from harness.evaluation.run_split import Evaluation
from harness.systems.names import RUN_FILE


def run(args: argparse.Namespace) -> int:
    cli_paths.input_file("--corpus", args.corpus, "pass the fixture `build` wrote")
    cli_paths.directory("--store-dir", args.store_dir)
    cli_paths.directory("--output-dir", args.output_dir)
    if args.archive is not None:
        cli_paths.input_file("--archive", args.archive, "pass the dataset's zip")
    options = {"format": args.format}
    if args.run_file is not None:
        cli_paths.input_file("RUN_FILE", args.run_file, "pass the run file to evaluate (TREC or JSON)")
        options["file"] = str(args.run_file)
    if args.name is not None:
        options["name"] = args.name
    evaluation = Evaluation(corpus=args.corpus, store_dir=args.store_dir, output_dir=args.output_dir,
                            split=args.split, replace=args.replace, argv=tuple(sys.argv), system=RUN_FILE,
                            system_options=tuple(sorted(options.items())), measures=tuple(args.measure or ()))
    return evaluate_split(args, evaluation, SystemChoice(RUN_FILE))
