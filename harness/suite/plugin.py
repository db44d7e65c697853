"""The pytest plugin `scifact_harness`: registered by installing the project (entry point `pytest11`), or named with
`pytest -p scifact_harness`. It adds the --scifact-* options, the suite's markers and session fixtures, the held-out
gate and the quality bars, and brings the suite's own tests (this package's test_scifact.py) into a session that
selects them by marker (`-m calibration`, `heldout`, `final`, `parity`, `compare`, `sweep`) without naming test paths,
so another repository runs `pytest -p scifact_harness -m calibration --scifact-system mypkg:System` as this one
does."""

import re
from pathlib import Path
from typing import Any

import pytest

from harness.suite import options
from harness.suite.suite_route import HIDDEN, hidden_directory, ignore
from harness.suite.system_choice import CHOICE, check_rootdir, choose_system, header

SUITE = Path(__file__).resolve().parent
SUITE_MARKERS = {
    "calibration": "the SciFact evaluation on the calibration split (run with -m calibration)",
    "heldout": "the SciFact evaluation on the held-out split, after the freeze (run with -m heldout "
               f"{options.SPEND_HELDOUT})",
    "final": "the all-query receipts, after the held-out ones, and the quality bars (run with -m final "
             f"{options.SPEND_HELDOUT})",
    "parity": f"the mteb-parity profile on all 300 queries, against MTEB's published score ({options.SPEND_HELDOUT})",
    "compare": "the comparison of each split's modes already evaluated in the output dir, and with "
               f"{options.COMPARE_RUN} of different systems' runs, written and validated (run with -m compare)",
    "sweep": f"every configuration of the grid {options.SWEEP}=GRID names, evaluated on calibration and counted in "
             "the store's run ledger (run with -m sweep)",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    options.add_options(parser)


def _selects_the_suite(config: pytest.Config) -> bool:
    expression = config.getoption("markexpr") or ""
    return any(re.search(rf"\b{name}\b", expression) for name in SUITE_MARKERS)


def pytest_configure(config: pytest.Config) -> None:
    for name, meaning in SUITE_MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {meaning}")
    explicit = config.args_source == pytest.Config.ArgsSource.ARGS
    inside = any(Path(arg).resolve() == SUITE or SUITE in Path(arg).resolve().parents for arg in config.args)
    selected = _selects_the_suite(config)
    controller = not hasattr(config, "workerinput")  # xdist's workers inherit what the controller checked
    if controller:
        check_rootdir(config)
        options.session_contract(config)  # a dataset or contract that cannot be read is a usage error, before any test
    config.stash[CHOICE] = choose_system(config, load=selected and controller)
    if selected and not explicit and not inside:
        config.args.append(str(SUITE))
    config.stash[HIDDEN] = hidden_directory(SUITE, config.args, config.invocation_params.dir) if selected else None


@pytest.hookimpl(tryfirst=True)
def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    return ignore(collection_path, SUITE, config.stash.get(HIDDEN, None))


def pytest_report_header(config: pytest.Config) -> str:
    return header(config)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int,
                            config: pytest.Config) -> None:
    """One line per mode and split with its metrics, latency, failures, the validator's verdict and the
    artifact path, then the next step; then each comparison's lines. The lines come from the tests' recorded
    properties, which xdist carries from its workers to this process."""
    from harness.cli.summary import COMPARISON_PROPERTY, SUMMARY_PROPERTY, next_step
    from harness.modes import MODES
    from harness.suite.session import fixture_name

    recorded: list[dict[str, str]] = _recorded(terminalreporter, SUMMARY_PROPERTY)
    compared: list[dict[str, Any]] = _recorded(terminalreporter, COMPARISON_PROPERTY)
    if not recorded and not compared:
        return
    contract = options.session_contract(config)
    terminalreporter.section(f"{contract.title or contract.name} results")
    splits = ("calibration", "heldout", "all")
    for entry in sorted(recorded, key=lambda e: (splits.index(e["split"]), MODES.index(e["mode"]))):
        terminalreporter.write_line(entry["line"])
    for entry in sorted(compared, key=lambda e: splits.index(e["split"])):
        terminalreporter.write_line("\n".join(entry["lines"]))
    if not recorded:
        return
    work_dir = options.work_dir(config)
    last = max((e["split"] for e in recorded), key=splits.index)
    terminalreporter.write_line("")
    if exitstatus == 0:
        terminalreporter.write_line(next_step(last, work_dir=work_dir, corpus=work_dir / fixture_name(
            options.session_dataset(config)), store_dir=options.store_dir(config),
            output_dir=options.output_dir(config), system=config.stash[CHOICE], **options.dataset_arguments(config)))
    else:
        terminalreporter.write_line("not every test passed: fix what failed above before the next step")


def _recorded(terminalreporter: pytest.TerminalReporter, name: str) -> list[Any]:
    """The values the tests' reports recorded under the user property `name`, from their call phase."""
    found: list[Any] = []
    for reports in terminalreporter.stats.values():
        for report in reports:
            found += [value for key, value in getattr(report, "user_properties", ())
                      if key == name and getattr(report, "when", "call") == "call"]
    return found
