"""Command line: `python -m harness build|run|freeze|bundle|compare|report|export|new-system ...`; exit codes in
`harness.cli.errors`."""

import argparse
import json
import os
import sys
from typing import TypeAlias

from harness.cli import new_system, publish_commands
from harness.cli import paths as cli_paths
from harness.cli.errors import Parser, report_failure
from harness.cli.hypothesis_options import add_hypothesis_options, declared_line, hypothesis_request
from harness.cli.paths import path_argument, text_argument
from harness.cli.summary import after_freeze, failure_lines, next_step, result_line, validation_lines, verdict
from harness.cli.system_options import system_choice, system_option, system_options
from harness.cli.version import VersionAction
from harness.corpus.contract import scifact_contract
from harness.corpus.download import DEADLINE_VARIABLE, deadline_seconds
from harness.corpus.split import SPLITS
from harness.embedding.embedders import make_embedder
from harness.embedding.embedders.select import BACKENDS
from harness.embedding.profiles import PROFILES, text_profile
from harness.evaluation.gates.freeze import freeze_configuration
from harness.evaluation.run_split import Evaluation, offered_modes, run_split
from harness.evaluation.runner import check_fixture_contract
from harness.evaluation.system_replay import replay
from harness.fixture.build import build_fixture
from harness.fixture.corpus_fixture import load_fixture
from harness.modes import MODES
from harness.signals import sigterm_raises
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.registry.select import make_builder
from harness.typed_commands import shown
from harness.validator.stored import Subject, validate_stored

Commands: TypeAlias = "argparse._SubParsersAction[Parser]"


def _command(commands: Commands, name: str, help: str) -> Parser:
    parser: Parser = commands.add_parser(name, help=help)
    parser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show the traceback of an error")
    return parser


def add_build_parser(commands: Commands) -> None:
    build = _command(commands, "build", "build the SciFact corpus fixture (documents, queries, vectors)")
    build.add_argument("--out", type=path_argument, required=True, help="fixture JSON to write")
    build.add_argument("--work-dir", type=path_argument, required=True, help="downloads and the embedding cache")
    build.add_argument("--archive", type=path_argument, default=os.environ.get("SCIFACT_ARCHIVE") or None,
                       help="local BEIR scifact.zip (default: $SCIFACT_ARCHIVE; else download from BEIR)")
    build.add_argument("--download-deadline", type=text_argument, default=None, metavar="SECONDS",
                       help=f"most seconds the whole download may take (default: ${DEADLINE_VARIABLE}, else 900)")
    build.add_argument("--embedder", choices=BACKENDS, default="local",
                       help="local: the packaged all-MiniLM-L6-v2 (default); ollama: an Ollama server")
    build.add_argument("--model", type=text_argument, default=None,
                       help="model name (default: $SCIFACT_EMBED_MODEL, else the backend's default)")
    build.add_argument("--allow-unpinned", action="store_true",
                       help="accept payload digests that differ from the pins; recorded as unpinned")
    build.add_argument("--profile", choices=PROFILES, default="scifact-contract",
                       help="text profile; mteb-parity reproduces MTEB's encoding and is never a contract result")
    build.add_argument("--no-progress", action="store_true",
                       help="no progress on stderr (a bar on a terminal, lines in a log)")


def run_build(args: argparse.Namespace) -> int:
    cli_paths.output_file("--out", args.out)
    cli_paths.directory("--work-dir", args.work_dir)
    if args.archive is not None:
        cli_paths.input_file("--archive", args.archive, "pass the path of a BEIR scifact.zip")
    deadline = deadline_seconds(args.download_deadline)
    contract = scifact_contract()
    report = build_fixture(
        contract, out=args.out, work_dir=args.work_dir, archive=args.archive,
        embedder=make_embedder(args.embedder, args.model), allow_unpinned=args.allow_unpinned,
        progress=not args.no_progress, profile=text_profile(args.profile, contract), download_deadline=deadline,
    )
    rate = report.embedded / report.seconds if report.embedded else 0.0
    print(
        f"fixture {report.fixture}: {report.documents} documents, {report.queries} queries, "
        f"{report.qrel_pairs} qrel pairs, {report.dimensions}-dimensional vectors; "
        f"{report.embedded} embedded ({rate:.1f}/s), {report.from_cache} from cache; "
        f"{'written' if report.changed else 'unchanged'} in {report.seconds:.1f} s"
    )
    return 0


def _evaluation_paths(args: argparse.Namespace) -> None:
    cli_paths.input_file("--corpus", args.corpus, "pass the fixture `python -m harness build` wrote")
    cli_paths.directory("--store-dir", args.store_dir)
    cli_paths.directory("--output-dir", args.output_dir)


def add_run_parser(commands: Commands) -> None:
    run = _command(commands, "run", "evaluate retrieval modes on a split; writes rows and aggregate receipts")
    run.add_argument("--corpus", type=path_argument, required=True, help="corpus fixture JSON (from `build`)")
    run.add_argument("--store-dir", type=path_argument, required=True, help="persisted store (built or reused)")
    run.add_argument("--output-dir", type=path_argument, required=True, help="where the artifacts go")
    run.add_argument("--split", choices=SPLITS, required=True,
                     help="calibration (before the freeze), heldout (after it) or all (after heldout)")
    run.add_argument("--mode", choices=(*MODES, "all"), default="all", help="default: every mode the system offers")
    system_option(run)
    run.add_argument("--replace", action="store_true",
                     help="move earlier artifacts of the same mode and split to OUTPUT/superseded/ first")
    run.add_argument("--no-validate", action="store_true",
                     help="skip the independent validator's verdict at the end (run it later on the aggregates)")


def run_evaluation(args: argparse.Namespace) -> int:
    _evaluation_paths(args)
    choice = system_choice(args)
    modes = None if args.mode == "all" else (args.mode,)
    evaluation = Evaluation(corpus=args.corpus, store_dir=args.store_dir, output_dir=args.output_dir,
                            split=args.split, modes=modes, replace=args.replace, argv=tuple(sys.argv),
                            system=args.system, system_options=system_options(args),
                            system_directory=choice.directory)
    runs = run_split(evaluation, scifact_contract())
    judged = []
    for run in runs:
        report = None if args.no_validate else validate_stored(Subject(run.aggregate_path))
        judged += [] if report is None else [(run, report)]
        print(result_line(run.aggregate, run.aggregate_path,
                          "not validated (--no-validate)" if report is None else verdict(report)))
        if run.superseded:
            print(f"{'':<12} earlier artifacts moved to {shown(run.superseded)}")
    failed, code = failure_lines(runs)
    for line in failed:  # the artifacts are written; a run whose queries failed is still no success
        print(f"error: {line}", file=sys.stderr)
    if code:
        return code
    print(next_step(args.split, work_dir=args.corpus.parent, corpus=args.corpus, store_dir=args.store_dir,
                    output_dir=args.output_dir, system=choice))
    refused, code = validation_lines(judged)  # its own verdict ends it as the validator's would: 1, or 7
    for line in refused:
        print(f"error: {line}", file=sys.stderr)
    return code


def add_freeze_parser(commands: Commands) -> None:
    freeze = _command(commands, "freeze", "record the configuration that held-out runs must match")
    freeze.add_argument("--corpus", type=path_argument, required=True, help="corpus fixture JSON")
    freeze.add_argument("--store-dir", type=path_argument, required=True, help="the store calibration used")
    freeze.add_argument("--output-dir", type=path_argument, required=True,
                        help="where freeze.json and the receipts go")
    freeze.add_argument("--mode", choices=(*MODES, "all"), default="all",
                        help="modes to freeze (default: every mode the system offers)")
    system_option(freeze)
    freeze.add_argument("--allow-dirty", action="store_true",
                        help="freeze a work tree with uncommitted changes (recorded; not eligible for a claim)")
    freeze.add_argument("--replace", action="store_true",
                        help="re-freeze (only before any held-out or all-query run on this store)")
    freeze.add_argument("--allow-failed-calibration", action="store_true",
                        help="freeze although a frozen mode's calibration receipt in --output-dir records failed "
                             "queries, or is missing (recorded in freeze.json)")
    add_hypothesis_options(freeze)


def run_freeze(args: argparse.Namespace) -> int:
    _evaluation_paths(args)
    choice = system_choice(args)
    contract = scifact_contract()
    fixture = load_fixture(args.corpus)
    check_fixture_contract(fixture, contract)
    system = make_builder(contract.namespace, SearchConfig(), args.system, dict(system_options(args)),
                          directory=choice.directory).open(fixture, args.store_dir)
    modes = offered_modes(None if args.mode == "all" else (args.mode,), system.modes, args.system)
    frozen = freeze_configuration(fixture=fixture, system=system, contract=contract,
                                  modes=modes, output_dir=args.output_dir,
                                  argv=sys.argv, allow_dirty=args.allow_dirty, replace=args.replace,
                                  allow_failed_calibration=args.allow_failed_calibration,
                                  hypothesis=hypothesis_request(args))
    record = frozen.record
    print(f"frozen: {frozen.path} ({record['freeze_sha256']}); modes {', '.join(record['modes'])}; "
          f"source {record['source']['git'].get('commit')} ({record['source']['dirty_state_policy']}); "
          f"run ledger position {frozen.event.position}")
    failed = {mode: "no receipt" if seen is None else f"{seen['failures']} of {seen['row_count']} queries failed"
              for mode, seen in record["calibration"]["receipts"].items() if seen is None or seen["failures"]}
    if failed:
        print("calibration: " + "; ".join(f"{m}: {what}" for m, what in failed.items()) + " (frozen with "
              "--allow-failed-calibration, recorded in the freeze record)")
    if record.get("hypothesis"):
        print(declared_line(record["hypothesis"]))
    print(after_freeze(corpus=args.corpus, store_dir=args.store_dir, output_dir=args.output_dir, system=choice))
    return 0


def add_replay_parser(commands: Commands) -> None:
    replay = _command(commands, "replay", "ask the live system a run's queries again; prints JSON (the validator "
                                          "uses it for a lane it cannot recompute on its own)")
    replay.add_argument("--aggregate", type=path_argument, required=True, help="the run's aggregate receipt")
    replay.add_argument("--fixture", type=path_argument, default=None, metavar="FILE",
                        help="the run's fixture (default: where the output directory's locations.json places it)")
    replay.add_argument("--store-dir", type=path_argument, default=None,
                        help="where the system is now (default: where the output directory's locations.json places "
                             "it)")
    replay.add_argument("--system-path", type=path_argument, default=None, metavar="DIR",
                        help="where the system's module is now (default: where the output directory's "
                             "locations.json places the system's source root)")


def run_replay(args: argparse.Namespace) -> int:
    cli_paths.input_file("--aggregate", args.aggregate, "pass a run's *.aggregate.json")
    if args.system_path is not None:
        cli_paths.existing_directory("--system-path", args.system_path)
    if args.fixture is not None:
        cli_paths.input_file("--fixture", args.fixture, "pass the run's fixture (.json)")
    print(json.dumps(replay(args.aggregate, args.store_dir, args.system_path, args.fixture), sort_keys=True))
    return 0


def build_parser(prog: str = "scifact-harness") -> Parser:
    parser = Parser(prog=prog, description=__doc__)
    parser.add_argument("--version", action=VersionAction, help="print the version and the harness source digest")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                     help="build, run, freeze, bundle, replay, compare, report, export or "
                                          "new-system")
    add_build_parser(commands)
    add_run_parser(commands)
    add_freeze_parser(commands)
    add_replay_parser(commands)
    publish_commands.add_all(commands)
    new_system.add_parser(commands)
    return parser


def main(argv: list[str] | None = None, prog: str = "scifact-harness") -> int:
    args = build_parser(prog).parse_args(argv)
    commands_by_name = {"build": run_build, "run": run_evaluation, "freeze": run_freeze,
                        "replay": run_replay, "new-system": new_system.run, **publish_commands.HANDLERS}
    try:
        with sigterm_raises():
            return commands_by_name[args.command](args)
    except BaseException as exc:  # every failure ends in one line and its exit code (harness.cli.errors)
        if isinstance(exc, SystemExit):
            raise
        return report_failure(exc, debug=args.debug)
