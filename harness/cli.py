"""Command line: `python -m harness build|run|freeze|bundle ...`."""

import argparse
import json
import os
import sys
from pathlib import Path

from .build import build_fixture
from .bundle import make_bundle
from .contract import scifact_contract
from .embedders import make_embedder
from .embedders.select import BACKENDS
from .errors import HarnessError
from .evaluate import Evaluation, evaluate
from .fixture import load_fixture
from .freeze import freeze_configuration
from .profiles import PROFILES, text_profile
from .retrieval.config import MODES, SearchConfig
from .runner import check_fixture_contract
from .split import SPLITS
from .store.store import open_store
from .summary import after_freeze, next_step, result_line, shown, verdict
from .validator.cli import validate


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name)
    return Path(value) if value else None


def add_build_parser(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    build = commands.add_parser("build", help="build the SciFact corpus fixture (documents, queries, vectors)")
    build.add_argument("--out", type=Path, required=True, help="fixture JSON to write")
    build.add_argument("--work-dir", type=Path, required=True, help="downloads and the embedding cache")
    build.add_argument("--archive", type=Path, default=_env_path("SCIFACT_ARCHIVE"),
                       help="local BEIR scifact.zip (default: $SCIFACT_ARCHIVE; else download from BEIR)")
    build.add_argument("--embedder", choices=BACKENDS, default="local")
    build.add_argument("--model", default=None,
                       help="model name (default: $SCIFACT_EMBED_MODEL, else the backend's default)")
    build.add_argument("--allow-unpinned", action="store_true",
                       help="accept payload digests that differ from the pins; recorded as unpinned")
    build.add_argument("--profile", choices=PROFILES, default="scifact-contract",
                       help="text profile; mteb-parity reproduces MTEB's encoding and is never a contract result")
    build.add_argument("--no-progress", action="store_true", help="no progress bar")


def run_build(args: argparse.Namespace) -> int:
    contract = scifact_contract()
    report = build_fixture(
        contract, out=args.out, work_dir=args.work_dir, archive=args.archive,
        embedder=make_embedder(args.embedder, args.model), allow_unpinned=args.allow_unpinned,
        progress=not args.no_progress, profile=text_profile(args.profile, contract),
    )
    rate = report.embedded / report.seconds if report.embedded else 0.0
    print(
        f"fixture {report.fixture}: {report.documents} documents, {report.queries} queries, "
        f"{report.qrel_pairs} qrel pairs, {report.dimensions}-dimensional vectors; "
        f"{report.embedded} embedded ({rate:.1f}/s), {report.from_cache} from cache; "
        f"{'written' if report.changed else 'unchanged'} in {report.seconds:.1f} s"
    )
    return 0


def add_run_parser(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    run = commands.add_parser("run", help="evaluate retrieval modes on a split; writes rows and aggregate receipts")
    run.add_argument("--corpus", type=Path, required=True, help="corpus fixture JSON (from `build`)")
    run.add_argument("--store-dir", type=Path, required=True, help="persisted store (built or reused)")
    run.add_argument("--output-dir", type=Path, required=True, help="where the artifacts go")
    run.add_argument("--split", choices=SPLITS, required=True)
    run.add_argument("--mode", choices=(*MODES, "all"), default="all")
    run.add_argument("--replace", action="store_true",
                     help="move earlier artifacts of the same mode and split to OUTPUT/superseded/ first")
    run.add_argument("--no-validate", action="store_true",
                     help="skip the independent validator's verdict at the end (run it later on the aggregates)")


def run_evaluation(args: argparse.Namespace) -> int:
    modes = MODES if args.mode == "all" else (args.mode,)
    evaluation = Evaluation(corpus=args.corpus, store_dir=args.store_dir, output_dir=args.output_dir,
                            split=args.split, modes=modes, replace=args.replace, argv=tuple(sys.argv))
    runs = evaluate(evaluation, scifact_contract())
    for run in runs:
        judged = "not validated (--no-validate)" if args.no_validate else verdict(validate(run.aggregate_path))
        print(result_line(run.aggregate, run.aggregate_path, judged))
        if run.superseded:
            print(f"{'':<12} earlier artifacts moved to {shown(run.superseded)}")
    print(next_step(args.split, work_dir=args.corpus.parent, corpus=args.corpus, store_dir=args.store_dir,
                    output_dir=args.output_dir))
    return 0


def add_freeze_parser(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    freeze = commands.add_parser("freeze", help="record the configuration that held-out runs must match")
    freeze.add_argument("--corpus", type=Path, required=True, help="corpus fixture JSON")
    freeze.add_argument("--store-dir", type=Path, required=True, help="the store calibration used")
    freeze.add_argument("--output-dir", type=Path, required=True, help="where freeze.json and the receipts go")
    freeze.add_argument("--mode", choices=(*MODES, "all"), default="all", help="modes to freeze")
    freeze.add_argument("--allow-dirty", action="store_true",
                        help="freeze a work tree with uncommitted changes (recorded; not eligible for a claim)")
    freeze.add_argument("--replace", action="store_true",
                        help="re-freeze (only before any held-out or all-query run on this store)")


def run_freeze(args: argparse.Namespace) -> int:
    contract = scifact_contract()
    fixture = load_fixture(args.corpus)
    check_fixture_contract(fixture, contract)
    config = SearchConfig()
    store = open_store(args.store_dir, fixture, contract.namespace, config.lexical)
    frozen = freeze_configuration(fixture=fixture, store=store, config=config, contract=contract,
                                  modes=MODES if args.mode == "all" else (args.mode,), output_dir=args.output_dir,
                                  argv=sys.argv, allow_dirty=args.allow_dirty, replace=args.replace)
    record = frozen.record
    print(f"frozen: {frozen.path} ({record['freeze_sha256']}); modes {', '.join(record['modes'])}; "
          f"source {record['source']['git'].get('commit')} ({record['source']['dirty_state_policy']}); "
          f"run ledger position {frozen.event.position}")
    print(after_freeze(corpus=args.corpus, store_dir=args.store_dir, output_dir=args.output_dir))
    return 0


def add_bundle_parser(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    bundle = commands.add_parser("bundle", help="validate and collect the artifacts into a publishable bundle")
    bundle.add_argument("--output-dir", type=Path, required=True, help="the evaluation's output directory")
    bundle.add_argument("--bundle-dir", type=Path, required=True, help="new directory for the bundle")


def run_bundle(args: argparse.Namespace) -> int:
    path = make_bundle(args.output_dir, args.bundle_dir)
    for report in sorted(path.glob("validation/*.validation.json")):
        validated = json.loads(report.read_text(encoding="utf-8"))
        aggregate_path = path / "artifacts" / (report.name.removesuffix(".validation.json") + ".aggregate.json")
        aggregate = json.loads(aggregate_path.read_text(encoding="utf-8"))
        print(result_line(aggregate, aggregate_path, "ELIGIBLE" if validated["eligible"] else "NOT ELIGIBLE"))
    print(f"bundle: {shown(path)}: every aggregate validated, every text re-embedded; read "
          f"{shown(path / 'CLAIMS.md')}, then publish the whole directory (MANIFEST.json lists every file's sha256)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    add_build_parser(commands)
    add_run_parser(commands)
    add_freeze_parser(commands)
    add_bundle_parser(commands)
    args = parser.parse_args(argv)
    try:
        commands_by_name = {"build": run_build, "run": run_evaluation, "freeze": run_freeze, "bundle": run_bundle}
        return commands_by_name[args.command](args)
    except HarnessError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
