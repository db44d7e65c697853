"""The handlers of `build`, `run`, `freeze` and `replay`: what each does once its options are parsed
(harness.cli.parser), with what it prints."""

import argparse
import json
import sys
from pathlib import Path

from harness.cli.freeze_line import frozen_line
from harness.cli.parsing import paths as cli_paths
from harness.cli.parsing.dataset import (
    build_contract,
    dataset_options,
    default_archive,
    fixture_contract,
    given_archive,
)
from harness.cli.parsing.hypothesis import declared_lines, hypothesis_request
from harness.cli.summary import (
    SystemChoice,
    after_freeze,
    failure_lines,
    next_step,
    result_line,
    validation_lines,
    verdict,
)
from harness.corpus.deadline import deadline_seconds
from harness.embedding.embedders.select import make_embedder, model_prompts
from harness.embedding.profiles import text_profile
from harness.evaluation.gates.freeze import freeze_configuration
from harness.evaluation.receipts.locations import place_archive, place_model
from harness.evaluation.run_split import Evaluation, check_fixture_contract, offered_modes, run_split
from harness.evaluation.system_replay import replay, replay_all
from harness.fixture.build import archive_name, build_fixture
from harness.fixture.corpus_fixture import load_fixture
from harness.systems.builtin.config.overrides import load_config
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.names import BUILTIN
from harness.systems.plugin.location import locate
from harness.systems.registry.select import SystemSpecError, make_builder
from harness.typed_commands import harness_command, shown
from harness.validator.stored import Options, Subject, validate_stored


def system_options(args: argparse.Namespace) -> tuple[tuple[str, str], ...]:
    return () if args.milvus_uri is None else (("uri", args.milvus_uri),)


def system_choice(args: argparse.Namespace) -> SystemChoice:
    """Where the system's module lies, found before any work (a module found nowhere ends here, with the fix), and the
    built-in system's configuration file (--config), checked as a path."""
    for given in args.system_path or ():
        cli_paths.existing_directory("--system-path", given)
    config = getattr(args, "config", None)
    if config is not None:
        if args.system != BUILTIN:
            raise SystemSpecError(f"--config sets the built-in system's parameters; {args.system!r} takes its "
                                  "configuration from its own code (its options and files): leave --config out")
        cli_paths.input_file("--config", config, "pass a JSON file of the built-in system's overrides")
    candidates = args.system_path or [Path.cwd()]
    return SystemChoice(args.system, locate(args.system, candidates, "--system", "--system-path DIR"), config)


def search_config(choice: SystemChoice) -> SearchConfig:
    """The built-in system's configuration: the defaults, with the --config file's overrides (each bad one named)."""
    return SearchConfig() if choice.config is None else load_config(choice.config)


def run_build(args: argparse.Namespace) -> int:
    cli_paths.output_file("--out", args.out)
    cli_paths.directory("--work-dir", args.work_dir)
    contract = build_contract(args)
    archive = given_archive(args, contract) or default_archive(args)
    if archive is not None:
        cli_paths.input_file("--archive" if args.archive else "$SCIFACT_ARCHIVE", archive,
                             f"pass the path of the dataset's BEIR zip ({archive_name(contract)})")
    deadline = deadline_seconds(args.download_deadline)
    embedder = make_embedder(args.embedder, args.model, name=args.model_name)
    # the model's prompts only for the profile that asks with them (an Ollama server is asked nothing before)
    prompts = model_prompts(embedder) if args.profile == "model-prompts" else None
    report = build_fixture(
        contract, out=args.out, work_dir=args.work_dir, archive=archive, embedder=embedder,
        allow_unpinned=args.allow_unpinned, progress=not args.no_progress,
        profile=text_profile(args.profile, contract, prompts),
        download_deadline=deadline,
    )
    place_model(args.out.parent, embedder)
    rate = report.embedded / report.seconds if report.embedded else 0.0
    print(
        f"fixture {report.fixture}: {report.documents} documents, {report.queries} queries, "
        f"{report.qrel_pairs} qrel pairs, {report.dimensions}-dimensional vectors; "
        f"{report.embedded} embedded ({rate:.1f}/s), {report.from_cache} from cache; "
        f"{'written' if report.changed else 'unchanged'} in {report.seconds:.1f} s"
    )
    return 0


def _evaluation_paths(args: argparse.Namespace) -> None:
    cli_paths.input_file("--corpus", args.corpus, f"pass the fixture `{harness_command('build')}` wrote")
    cli_paths.directory("--store-dir", args.store_dir)
    cli_paths.directory("--output-dir", args.output_dir)


def run_evaluation(args: argparse.Namespace) -> int:
    _evaluation_paths(args)
    if args.archive is not None:
        cli_paths.input_file("--archive", args.archive, "pass the dataset's zip")
    choice = system_choice(args)
    modes = None if args.mode == "all" else (args.mode,)
    evaluation = Evaluation(corpus=args.corpus, store_dir=args.store_dir, output_dir=args.output_dir,
                            split=args.split, modes=modes, replace=args.replace, argv=tuple(sys.argv),
                            system=args.system, system_options=system_options(args),
                            system_directory=choice.directory, measures=tuple(args.measure or ()),
                            config=search_config(choice))
    return evaluate_split(args, evaluation, choice)


def evaluate_split(args: argparse.Namespace, evaluation: Evaluation, choice: SystemChoice) -> int:
    """The evaluation of `run` (and of `evaluate`, a run file's): the runs, each one's line and verdict, the next
    step; the exit code names whose failure ended it."""
    fixture = load_fixture(args.corpus)
    contract = fixture_contract(fixture, args.dataset, args.contract)
    runs = run_split(evaluation, contract, fixture=fixture)
    archive = given_archive(args, contract)
    named = place_archive(args.output_dir, fixture, archive)  # compare, report and bundle find it there too
    judged = []
    for run in runs:
        report = None if args.no_validate else validate_stored(Subject(run.aggregate_path), Options(archive=named))
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
                    output_dir=args.output_dir, system=choice, dataset=dataset_options(args, contract),
                    archive=("--archive", shown(archive)) if archive is not None else ()))
    refused, code = validation_lines(judged)  # its own verdict ends it as the validator's would: 1, or 7
    for line in refused:
        print(f"error: {line}", file=sys.stderr)
    return code


def run_freeze(args: argparse.Namespace) -> int:
    _evaluation_paths(args)
    if args.archive is not None:
        cli_paths.input_file("--archive", args.archive, "pass the dataset's zip")
    hypotheses = hypothesis_request(args)  # a malformed declaration is named before anything is read
    choice = system_choice(args)
    fixture = load_fixture(args.corpus)
    contract = fixture_contract(fixture, args.dataset, args.contract)
    check_fixture_contract(fixture, contract)
    system = make_builder(contract.namespace, search_config(choice), args.system, dict(system_options(args)),
                          directory=choice.directory).open(fixture, args.store_dir)
    modes = offered_modes(None if args.mode == "all" else (args.mode,), system.modes, args.system)
    frozen = freeze_configuration(fixture=fixture, system=system, contract=contract,
                                  modes=modes, output_dir=args.output_dir,
                                  argv=sys.argv, allow_dirty=args.allow_dirty, replace=args.replace,
                                  allow_failed_calibration=args.allow_failed_calibration,
                                  hypotheses=hypotheses)
    place_archive(args.output_dir, fixture, given_archive(args, contract))
    record = frozen.record
    print(frozen_line(frozen.path, record, frozen.event.position))
    failed = {mode: "no receipt" if seen is None else f"{seen['failures']} of {seen['row_count']} queries failed"
              for mode, seen in record["calibration"]["receipts"].items() if seen is None or seen["failures"]}
    if failed:
        print("calibration: " + "; ".join(f"{m}: {what}" for m, what in failed.items()) + " (frozen with "
              "--allow-failed-calibration, recorded in the freeze record)")
    if record.get("hypotheses"):
        print("\n".join(declared_lines(record["hypotheses"])))
    named = dataset_options(args, contract)
    beside = args.contract.parent / archive_name(contract) if args.contract is not None else None
    zip_name = shown(beside) if beside is not None and beside.is_file() else archive_name(contract)
    print(after_freeze(corpus=args.corpus, store_dir=args.store_dir, output_dir=args.output_dir, system=choice,
                       dataset=named, archive=("--archive", zip_name) if named else ()))
    return 0


def run_replay(args: argparse.Namespace) -> int:
    for aggregate in args.aggregate:
        cli_paths.input_file("--aggregate", aggregate, "pass a run's *.aggregate.json")
    if args.system_path is not None:
        cli_paths.existing_directory("--system-path", args.system_path)
    if args.fixture is not None:
        cli_paths.input_file("--fixture", args.fixture, "pass the run's fixture (.json)")
    if len(args.aggregate) == 1:
        print(json.dumps(replay(args.aggregate[0], args.store_dir, args.system_path, args.fixture), sort_keys=True))
    else:
        replays = replay_all(args.aggregate, args.store_dir, args.system_path, args.fixture)
        print(json.dumps({"replays": replays}, sort_keys=True))
    return 0


