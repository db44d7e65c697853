"""The handlers of `compare`, `report`, `export` and `bundle` (their options: harness.cli.publish_parsers), imported
by harness.cli.app once a command is parsed."""

import argparse
import json
from pathlib import Path
from typing import Any

from harness.cli.archive_option import place_archive_option
from harness.cli.parsing.paths import PathArgumentError, existing_directory, new_directory, writable_place
from harness.cli.summary import result_line
from harness.evaluation.comparison.artifact import CompareRequest, Procedure, compare
from harness.evaluation.comparison.run_specs import RunSpecError, parse_run
from harness.evaluation.comparison.systems_artifact import SystemsRequest, compare_systems
from harness.evaluation.gates.split_modes import split_modes
from harness.evaluation.receipts.artifacts import output_dataset
from harness.modes import MODES
from harness.publish.bundle import make_bundle
from harness.publish.exports.exports import export
from harness.publish.text.comparison_lines import modes_summary
from harness.publish.text.report_text import p_value, pair_label, signed
from harness.publish.text.systems_text import systems_summary
from harness.publish.verdicts import validator_judgement
from harness.typed_commands import shown


def run_compare(args: argparse.Namespace) -> int:
    if args.run is not None:
        return run_compare_systems(args)
    if args.baseline is not None and args.baseline not in MODES:
        raise RunSpecError(f"--baseline {args.baseline}: one of {', '.join(MODES)} (a run's name only with --run)")
    existing_directory("--output-dir", args.output_dir)
    place_archive_option(args.archive, [args.output_dir])
    request = CompareRequest(output_dir=args.output_dir, split=args.split, baseline=args.baseline,
                             procedure=Procedure(args.seed, args.resamples, args.permutations),
                             validate_inputs=not args.no_validate, replace=args.replace,
                             measures=tuple(args.measure or ()))
    path, document, moved = compare(request, validator_judgement)
    for line in modes_summary(path, document, moved):
        print(line)
    return 0


def run_compare_systems(args: argparse.Namespace) -> int:
    writable_place("--output-dir", args.output_dir, is_directory=True)
    args.output_dir.mkdir(parents=True, exist_ok=True)
    runs = [parse_run(v) for v in args.run]
    place_archive_option(args.archive, [run.output_dir for run in runs])
    request = SystemsRequest(output_dir=args.output_dir, split=args.split, runs=runs,
                             baseline=args.baseline, procedure=Procedure(args.seed, args.resamples, args.permutations),
                             validate_inputs=not args.no_validate, replace=args.replace,
                             measures=tuple(args.measure or ()))
    path, document, moved = compare_systems(request, validator_judgement)
    for line in systems_summary(path, document, moved):
        print(line)
    return 0


def run_export(args: argparse.Namespace) -> int:
    existing_directory("--output-dir", args.output_dir)
    target: Path = args.export_dir or args.output_dir / "exports"
    writable_place("--export-dir", target, is_directory=True)
    for split in args.split or ():
        if not split_modes(args.output_dir, split):
            raise PathArgumentError(f"--split {split}: {args.output_dir} holds no {split} aggregate; run that split "
                                    "first, or leave --split out to export every split that is there")
    place_archive_option(args.archive, [args.output_dir])
    written = export(args.output_dir, target, args.split, replace=args.replace)
    print(f"exported {len(written)} files to {target}: TREC and ranx runs (score = n - rank + 1, the receipt's order; "
          ".depth100 runs: the depth-100 rankings) and qrels, the original scores (.scores.tsv), per-query CSVs, "
          "MTEB result files (.mteb.json), summary.csv and summary.json, and a LaTeX table")
    return 0


def run_report(args: argparse.Namespace) -> int:
    from harness.publish.report.report import write_report

    existing_directory("--output-dir", args.output_dir)
    writable_place("--out", args.out, is_directory=False)
    markdown: Path = args.markdown or args.out.with_suffix(".md")
    writable_place("--markdown", markdown, is_directory=False)
    if markdown == args.out:
        raise PathArgumentError(f"--markdown {markdown} is the HTML file too; name another file")
    place_archive_option(args.archive, [args.output_dir])
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


def run_bundle(args: argparse.Namespace) -> int:
    existing_directory("--output-dir", args.output_dir)
    new_directory("--bundle-dir", args.bundle_dir)
    place_archive_option(args.archive, [args.output_dir])
    held = output_dataset(args.output_dir)
    if args.dataset is not None and held != args.dataset:
        raise PathArgumentError(f"--dataset {args.dataset}: {args.output_dir} holds "
                                + (f"runs of {held}" if held else "no run") + "; name the output directory of "
                                f"{args.dataset}'s evaluation, or leave --dataset out")
    path = make_bundle(args.output_dir, args.bundle_dir, args.archive, carry_model=args.carry_model)
    for report in sorted(path.glob("validation/*.validation.json")):
        validated = json.loads(report.read_text(encoding="utf-8"))
        aggregate_path = path / "artifacts" / (report.name.removesuffix(".validation.json") + ".aggregate.json")
        print(result_line(json.loads(aggregate_path.read_text(encoding="utf-8")), aggregate_path,
                          ("ELIGIBLE (ranking attested)" if validated["notes"].get("ranking") else "ELIGIBLE")
                          if validated["eligible"] else "NOT ELIGIBLE"))
    print(f"bundle: {shown(path)}: every aggregate validated, every text it reads re-embedded (CLAIMS.md says what "
          f"was reused); read {shown(path / 'CLAIMS.md')}, then publish the whole directory (MANIFEST.json lists every "
          "file's sha256)")
    return 0
