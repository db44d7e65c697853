"""The options and help of `compare`, `report`, `export` and `bundle` (their handlers: harness.cli.publish_commands),
from plain constants only."""

import argparse
from collections.abc import Callable

from harness.cli.parsing.paths import path_argument, text_argument
from harness.cli.parsing.subcommands import Commands, command
from harness.corpus.split import SPLITS
from harness.evaluation.comparison.procedure_terms import (
    DEFAULT_PERMUTATIONS,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    MIN_PERMUTATIONS,
    MIN_RESAMPLES,
)


def _whole(low: int, high: int | None, why: str) -> Callable[[str], int]:
    """An argparse type: a whole number in [low, high], else a usage error saying the range and why."""
    def parse(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
        if number < low or (high is not None and number > high):
            bound = f"from {low} to {high}" if high is not None else f"of at least {low}"
            raise argparse.ArgumentTypeError(f"{value}: give a whole number {bound} ({why})")
        return number
    return parse


ARCHIVE_HELP = ("the dataset's zip, placed for the validator (a collection of your own is re-derived from it; `run` "
                "already placed it when it was given --archive, or --contract with the zip beside it)")


def _archive(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--archive", type=path_argument, default=None, metavar="ZIP", help=ARCHIVE_HELP)


def add_compare(commands: Commands) -> None:
    parser = command(commands, "compare", "paired statistics of a split's modes (<dataset>-comparison-<split>.json), "
                      "or, with --run, of evaluations of different systems (<dataset>-systems-<split>.json)")
    parser.add_argument("--output-dir", type=path_argument, required=True,
                        help="the evaluation's output directory (rows and aggregates; the comparison is written "
                             "here); with --run, the directory the comparison between systems is written to")
    parser.add_argument("--split", choices=SPLITS, required=True, help="the split whose runs are compared")
    parser.add_argument("--run", action="append", default=None, metavar="NAME[:MODE]=DIR",
                        help="compare evaluations of different systems or configurations: a name, optionally one "
                             "mode, and the evaluation's output directory; twice or more (docs/comparing-systems.md)")
    parser.add_argument("--baseline", default=None, metavar="MODE_OR_RUN",
                        help="compare against this one only: a mode (default: every pair of modes), or with --run a "
                             "run's NAME (default: every two runs)")
    parser.add_argument("--measure", type=text_argument, action="append", default=None, metavar="NAME",
                        help="compare this measure too, as ir_measures writes it (P@5, nDCG@20, ...), which every "
                             "compared run chose with --measure; repeatable (docs/measures.md)")
    parser.add_argument("--seed", type=_whole(0, 2**63 - 1, "a PCG64 seed"), default=DEFAULT_SEED,
                        help=f"PCG64 seed (default {DEFAULT_SEED})")
    parser.add_argument("--resamples", type=_whole(MIN_RESAMPLES, None, "fewer make the interval's ends noisy"),
                        default=DEFAULT_RESAMPLES,
                        help=f"bootstrap resamples (default {DEFAULT_RESAMPLES}, at least 1000)")
    parser.add_argument("--permutations", type=_whole(MIN_PERMUTATIONS, None, "the smallest p-value is "
                                                      "1 / (permutations + 1)"), default=DEFAULT_PERMUTATIONS,
                        help=f"sign-flip permutations (default {DEFAULT_PERMUTATIONS}, at least 10000)")
    parser.add_argument("--no-validate", action="store_true",
                        help="calibration only: do not require the validator's ELIGIBLE verdict (recorded)")
    parser.add_argument("--replace", action="store_true",
                        help="move an earlier comparison of this split to OUTPUT/superseded/ first")
    _archive(parser)


def add_export(commands: Commands) -> None:
    parser = command(commands, "export", "runs, qrels, per-query CSVs, MTEB result files, a summary and a LaTeX "
                      "table for other tools")
    parser.add_argument("--output-dir", type=path_argument, required=True, help="the evaluation's output directory")
    parser.add_argument("--split", choices=SPLITS, action="append", default=None,
                        help="a split to export (repeatable; default: every split with its modes' aggregates)")
    parser.add_argument("--export-dir", type=path_argument, default=None,
                        help="where to write (default: OUTPUT/exports)")
    parser.add_argument("--replace", action="store_true", help="overwrite earlier exports")
    _archive(parser)


def add_report(commands: Commands) -> None:
    parser = command(commands, "report", "an HTML report (and its Markdown version) from validated artifacts")
    parser.add_argument("--output-dir", type=path_argument, required=True, help="the evaluation's output directory")
    parser.add_argument("--out", type=path_argument, required=True, help="the HTML file to write")
    parser.add_argument("--markdown", type=path_argument, default=None,
                        help="the Markdown version (default: --out with the suffix .md)")
    parser.add_argument("--unvalidated", action="store_true",
                        help="render without the validator's verdicts; the title then says UNVALIDATED")
    parser.add_argument("--replace", action="store_true", help="overwrite an earlier report")
    _archive(parser)


def add_bundle(commands: Commands) -> None:
    bundle = command(commands, "bundle", "validate and collect the artifacts into a publishable bundle")
    bundle.add_argument("--output-dir", type=path_argument, required=True, help="the evaluation's output directory")
    bundle.add_argument("--bundle-dir", type=path_argument, required=True, help="new directory for the bundle")
    bundle.add_argument("--archive", type=path_argument, default=None, metavar="ZIP",
                        help="the dataset's zip, for the validator to re-derive the fixture from (SciFact's is also "
                             "found through $SCIFACT_ARCHIVE; a collection of your own's wherever `run` placed it); "
                             "the bundle carries a collection of your own's zip for its reader")
    bundle.add_argument("--carry-model", action="store_true",
                        help="copy the runs' own embedding model (every file it loads) into the bundle, for a reader "
                             "who could not fetch it; its size is stated in CLAIMS.md")
    bundle.add_argument("--dataset", default=None, metavar="NAME",
                        help="the dataset the output directory's runs must be of, by the name their files carry "
                             "(scifact, nfcorpus, a collection's own name); refused before any work otherwise")


def add_all(commands: Commands) -> None:
    add_compare(commands)
    add_report(commands)
    add_export(commands)
    add_bundle(commands)
