"""`sweep --grid GRID`: every configuration of the grid on the calibration split, counted in the store's run ledger
(harness/evaluation/sweep/), its table and the next command printed."""

import argparse
import sys

from harness.cli.parsing import paths as cli_paths
from harness.cli.parsing.dataset import dataset_options, fixture_contract, given_archive
from harness.cli.sweep_lines import after_sweep, sweep_lines
from harness.evaluation.receipts.locations import place_archive
from harness.evaluation.sweep.sweep_run import run_sweep
from harness.fixture.corpus_fixture import load_fixture
from harness.systems.builtin.config.grid import read_grid
from harness.systems.builtin.config.overrides import PARAMETERS
from harness.systems.names import BUILTIN
from harness.systems.registry.select import SystemSpecError
from harness.typed_commands import harness_command, shown


def refuse_own_system(spec: str, option: str = "--system") -> SystemSpecError:
    run = harness_command("run", "--split", "calibration", "--system", spec, "--store-dir", "S", "--output-dir", "O")
    return SystemSpecError(
        f"a sweep sets the built-in system's parameters ({', '.join(PARAMETERS)}); {option} {spec} takes its "
        "configuration from its own code, which a sweep cannot set yet. Evaluate each of its configurations instead "
        f"with `{run}` on one store directory: every calibration run there is counted among the configurations tried, "
        "by its configuration digest, when you freeze the one you choose")


def run(args: argparse.Namespace) -> int:
    if args.system != BUILTIN:
        raise refuse_own_system(args.system)
    cli_paths.input_file("--grid", args.grid, 'pass the grid as JSON: {"parameters": {"rrf_k": [20, 40, 60]}}')
    cli_paths.input_file("--corpus", args.corpus, f"pass the fixture `{harness_command('build')}` wrote")
    cli_paths.directory("--store-dir", args.store_dir)
    cli_paths.directory("--output-dir", args.output_dir)
    if args.archive is not None:
        cli_paths.input_file("--archive", args.archive, "pass the dataset's zip")
    grid = read_grid(args.grid)  # every refusal of the grid before the fixture is read
    fixture = load_fixture(args.corpus)
    contract = fixture_contract(fixture, args.dataset, args.contract)
    result = run_sweep(grid, fixture=fixture, contract=contract, store_dir=args.store_dir,
                       output_dir=args.output_dir, modes=None if args.mode == "all" else (args.mode,),
                       argv=tuple(sys.argv))
    archive = given_archive(args, contract)
    place_archive(args.output_dir, fixture, archive)
    print("\n".join(sweep_lines(result, args.store_dir)))
    print(after_sweep(result, corpus=args.corpus, store_dir=args.store_dir, output_dir=args.output_dir,
                      dataset=dataset_options(args, contract),
                      archive=("--archive", shown(archive)) if archive is not None else ()))
    return 0
