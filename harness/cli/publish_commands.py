"""The `compare`, `report`, `export` and `bundle` subcommands: their arguments and handlers (registered by
harness.cli.app)."""

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeAlias

from harness.cli.paths import PathArgumentError, existing_directory, new_directory, path_argument, writable_place
from harness.cli.summary import result_line
from harness.evaluation.comparison.artifact import (
    DEFAULT_PERMUTATIONS,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    CompareRequest,
    Procedure,
    compare,
)
from harness.evaluation.comparison.paired_statistics import MIN_PERMUTATIONS, MIN_RESAMPLES
from harness.evaluation.comparison.run_specs import RunSpecError, parse_run
from harness.evaluation.comparison.systems_artifact import SystemsRequest, compare_systems
from harness.evaluation.gates.split_modes import SPLITS, split_modes
from harness.modes import MODES
from harness.publish.bundle import make_bundle
from harness.publish.exports.exports import export
from harness.publish.text.report_text import p_value, pair_label, signed, verdict
from harness.publish.text.systems_text import systems_summary
from harness.publish.verdicts import validator_judgement
from harness.typed_commands import shown, validator_command

Commands: TypeAlias = "argparse._SubParsersAction[Any]"


def _command(commands: Commands, name: str, help: str) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser(name, help=help)
    parser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show the traceback of an error")
    return parser


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


def add_compare(commands: Commands) -> None:
    parser = _command(commands, "compare", "paired statistics of a split's modes (scifact-comparison-<split>.json), "
                      "or, with --run, of evaluations of different systems (scifact-systems-<split>.json)")
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


def run_compare(args: argparse.Namespace) -> int:
    if args.run is not None:
        return run_compare_systems(args)
    if args.baseline is not None and args.baseline not in MODES:
        raise RunSpecError(f"--baseline {args.baseline}: one of {', '.join(MODES)} (a run's name only with --run)")
    existing_directory("--output-dir", args.output_dir)
    request = CompareRequest(output_dir=args.output_dir, split=args.split, baseline=args.baseline,
                             procedure=Procedure(args.seed, args.resamples, args.permutations),
                             validate_inputs=not args.no_validate, replace=args.replace)
    path, document, moved = compare(request, validator_judgement)
    checked = ("inputs ELIGIBLE under the validator" if document["inputs_validation"]["validated"]
               else "inputs NOT validated (--no-validate)")
    print(f"comparison {path}: {document['query_count']} queries, {checked}; seed {args.seed}, "
          f"{args.resamples} resamples, {args.permutations} permutations")
    for comparison in document["comparisons"]:
        print(f"  {verdict(comparison, args.split)}")
    if moved is not None:
        print(f"  the earlier comparison was moved to {moved}")
    print(f"check it independently: {validator_command('--comparison', path)}")
    return 0


def run_compare_systems(args: argparse.Namespace) -> int:
    writable_place("--output-dir", args.output_dir, is_directory=True)
    args.output_dir.mkdir(parents=True, exist_ok=True)
    request = SystemsRequest(output_dir=args.output_dir, split=args.split, runs=[parse_run(v) for v in args.run],
                             baseline=args.baseline, procedure=Procedure(args.seed, args.resamples, args.permutations),
                             validate_inputs=not args.no_validate, replace=args.replace)
    path, document, moved = compare_systems(request, validator_judgement)
    for line in systems_summary(path, document, moved):
        print(line)
    return 0


def add_export(commands: Commands) -> None:
    parser = _command(commands, "export", "runs, qrels, per-query CSVs, MTEB result files, a summary and a LaTeX "
                      "table for other tools")
    parser.add_argument("--output-dir", type=path_argument, required=True, help="the evaluation's output directory")
    parser.add_argument("--split", choices=SPLITS, action="append", default=None,
                        help="a split to export (repeatable; default: every split with its modes' aggregates)")
    parser.add_argument("--export-dir", type=path_argument, default=None,
                        help="where to write (default: OUTPUT/exports)")
    parser.add_argument("--replace", action="store_true", help="overwrite earlier exports")


def run_export(args: argparse.Namespace) -> int:
    existing_directory("--output-dir", args.output_dir)
    target: Path = args.export_dir or args.output_dir / "exports"
    writable_place("--export-dir", target, is_directory=True)
    for split in args.split or ():
        if not split_modes(args.output_dir, split):
            raise PathArgumentError(f"--split {split}: {args.output_dir} holds no {split} aggregate; run that split "
                                    "first, or leave --split out to export every split that is there")
    written = export(args.output_dir, target, args.split, replace=args.replace)
    print(f"exported {len(written)} files to {target}: TREC and ranx runs (score = n - rank + 1, the receipt's order; "
          ".depth100 runs: the depth-100 rankings) and qrels, the original scores (.scores.tsv), per-query CSVs, "
          "MTEB result files (.mteb.json), summary.csv and summary.json, and a LaTeX table")
    return 0


def add_report(commands: Commands) -> None:
    parser = _command(commands, "report", "an HTML report (and its Markdown version) from validated artifacts")
    parser.add_argument("--output-dir", type=path_argument, required=True, help="the evaluation's output directory")
    parser.add_argument("--out", type=path_argument, required=True, help="the HTML file to write")
    parser.add_argument("--markdown", type=path_argument, default=None,
                        help="the Markdown version (default: --out with the suffix .md)")
    parser.add_argument("--unvalidated", action="store_true",
                        help="render without the validator's verdicts; the title then says UNVALIDATED")
    parser.add_argument("--replace", action="store_true", help="overwrite an earlier report")


def run_report(args: argparse.Namespace) -> int:
    from harness.publish.report.report import write_report

    existing_directory("--output-dir", args.output_dir)
    writable_place("--out", args.out, is_directory=False)
    markdown: Path = args.markdown or args.out.with_suffix(".md")
    writable_place("--markdown", markdown, is_directory=False)
    if markdown == args.out:
        raise PathArgumentError(f"--markdown {markdown} is the HTML file too; name another file")
    summary = write_report(args.output_dir, args.out, markdown, validated=not args.unvalidated, replace=args.replace)
    for line in _summary_lines(summary):
        print(line)
    print(f"report: {args.out} (Markdown: {markdown})")
    return 0


def _summary_lines(summary: dict[str, Any]) -> list[str]:
    lines = [f"{'UNVALIDATED: ' if not summary['validated'] else ''}{len(summary['splits'])} split(s): "
             f"{', '.join(summary['splits'])}"]
    for split, comparison in summary["comparisons"]:
        stats = comparison["metrics"]["ndcg_at_10"]
        lines.append(f"  {split}: {pair_label(comparison)} nDCG@10 {signed(stats['mean_difference'])}, Holm p "
                     f"{p_value(stats['holm_p_value'])}")
    return lines


def add_bundle(commands: Commands) -> None:
    bundle = _command(commands, "bundle", "validate and collect the artifacts into a publishable bundle")
    bundle.add_argument("--output-dir", type=path_argument, required=True, help="the evaluation's output directory")
    bundle.add_argument("--bundle-dir", type=path_argument, required=True, help="new directory for the bundle")


def run_bundle(args: argparse.Namespace) -> int:
    existing_directory("--output-dir", args.output_dir)
    new_directory("--bundle-dir", args.bundle_dir)
    path = make_bundle(args.output_dir, args.bundle_dir)
    for report in sorted(path.glob("validation/*.validation.json")):
        validated = json.loads(report.read_text(encoding="utf-8"))
        aggregate_path = path / "artifacts" / (report.name.removesuffix(".validation.json") + ".aggregate.json")
        print(result_line(json.loads(aggregate_path.read_text(encoding="utf-8")), aggregate_path,
                          "ELIGIBLE" if validated["eligible"] else "NOT ELIGIBLE"))
    print(f"bundle: {shown(path)}: every aggregate validated, every text re-embedded (CLAIMS.md says what was "
          f"reused); read {shown(path / 'CLAIMS.md')}, then publish the whole directory (MANIFEST.json lists every "
          "file's sha256)")
    return 0


HANDLERS = {"compare": run_compare, "export": run_export, "report": run_report, "bundle": run_bundle}


def add_all(commands: Commands) -> None:
    add_compare(commands)
    add_report(commands)
    add_export(commands)
    add_bundle(commands)
