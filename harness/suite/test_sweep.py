"""`pytest -m sweep --scifact-sweep=GRID`: the built-in system's configurations of the grid evaluated on calibration,
each counted in the store's run ledger, with the same code as `scifact-harness sweep` (harness/evaluation/sweep/);
the table and the next step go to the session's terminal summary."""

import sys

import pytest

from harness.cli.summary import COMPARISON_PROPERTY, SystemChoice, pytest_options
from harness.cli.sweep_command import refuse_own_system
from harness.cli.sweep_lines import after_sweep, lead_mode, sweep_lines
from harness.errors import HarnessError
from harness.evaluation.sweep.sweep_run import run_sweep
from harness.fixture.corpus_fixture import CorpusFixture
from harness.suite import options
from harness.suite.fixtures import failed
from harness.suite.system_choice import CHOICE
from harness.systems.builtin.config.grid import read_grid
from harness.typed_commands import pytest_command

from .test_scifact import RecordProperty


@pytest.mark.sweep
def test_sweep(scifact_corpus: CorpusFixture, pytestconfig: pytest.Config, record_property: RecordProperty) -> None:
    grid_path = options.given_path(pytestconfig, options.SWEEP)
    if grid_path is None:
        pytest.fail(f"-m sweep evaluates the grid {options.SWEEP}=GRID names; pass it, e.g. {options.SWEEP}=grid.json "
                    'holding {"parameters": {"rrf_k": [20, 40, 60]}}', pytrace=False)
    store_dir, output_dir = options.store_dir(pytestconfig), options.output_dir(pytestconfig)
    try:
        if pytestconfig.stash[CHOICE].spec != "builtin":
            raise refuse_own_system(pytestconfig.stash[CHOICE].spec, options.SYSTEM)
        result = run_sweep(read_grid(grid_path), fixture=scifact_corpus,
                           contract=options.session_contract(pytestconfig), store_dir=store_dir, output_dir=output_dir,
                           modes=None, argv=tuple(sys.argv))
    except HarnessError as exc:
        raise failed(exc) from None
    chosen = result.file.config_path(result.best(lead_mode(result)).index)
    calibration = pytest_command("-m", "calibration", *pytest_options(
        work_dir=options.work_dir(pytestconfig), store_dir=store_dir, output_dir=output_dir,
        system=SystemChoice(config=chosen)))
    lines = [*sweep_lines(result, store_dir), after_sweep(result, corpus=scifact_corpus.path, store_dir=store_dir,
                                                          output_dir=output_dir, **options.dataset_arguments(
                                                              pytestconfig)), f"  or: {calibration}"]
    record_property(COMPARISON_PROPERTY, {"split": "calibration", "lines": lines})
    assert len(result.tried) == len(read_grid(grid_path).configurations())
