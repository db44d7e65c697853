"""The clean tiny run the validator tests start from, generated once per session (per xdist worker).

Tiny corpus fixture (embedded with the packaged model) -> store -> calibration runs of the three modes
-> freeze -> held-out runs of the three modes, all through the harness's own evaluation path.
"""

import os
import sqlite3
from pathlib import Path

import pytest

from fixtures.archives import tiny_archive, tiny_contract
from harness.embedding.embedders.local import LocalEmbedder
from harness.evaluation.gates.freeze import freeze_configuration
from harness.evaluation.history.heldout_record import RECORD_VARIABLE
from harness.evaluation.run_split import Evaluation, run_split
from harness.fixture.build import build_fixture
from harness.fixture.corpus_fixture import load_fixture
from harness.modes import SEARCHED as MODES
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.store.store import build_store
from harness.systems.builtin.system import BuiltinSystem
from harness.validator.core.report import Report
from harness.validator.pipeline import validate_systems_comparison

from .comparisons import Compared, ValidatedReport, compared_once, validated_report_once
from .support import CleanRun, RunCopy
from .systems_compared import SystemsCompared, systems_compared


@pytest.fixture(scope="session")
def clean_run(tmp_path_factory: pytest.TempPathFactory, local_embedder: LocalEmbedder) -> CleanRun:
    root = tmp_path_factory.mktemp("validator-clean")
    contract, config = tiny_contract(), SearchConfig()
    report = build_fixture(contract, out=root / "fixture" / "tiny.json", work_dir=root / "work",
                           embedder=local_embedder, archive=tiny_archive(root / "tiny.zip"), progress=False)
    fixture = load_fixture(report.fixture)
    store, _ = build_store(root / "store", fixture, contract.namespace, config.lexical)
    out = root / "out"
    argv = ("pytest", "test_validate")
    run_split(Evaluation(corpus=fixture.path, store_dir=store.directory, output_dir=out, split="calibration",
                        config=config, argv=argv), contract)
    freeze_configuration(fixture=fixture, system=BuiltinSystem(store, config), contract=contract, modes=MODES,
                         output_dir=out, argv=list(argv), allow_dirty=True, replace=False,
                         allow_failed_calibration=False)
    run_split(Evaluation(corpus=fixture.path, store_dir=store.directory, output_dir=out, split="heldout",
                        config=config, argv=argv), contract)
    return CleanRun(root=root, fixture_path=fixture.path, store_dir=store.directory, out=out)


@pytest.fixture
def run_copy(clean_run: CleanRun, tmp_path: Path) -> RunCopy:
    """This test's own copy of the output directory (the fixture and store stay shared)."""
    return RunCopy.make(clean_run, tmp_path)


@pytest.fixture(scope="session")
def compared_heldout(clean_run: CleanRun, tmp_path_factory: pytest.TempPathFactory) -> Compared:
    """The clean run's held-out comparison (receipts from a clean HEAD) and the validator's reports on its inputs."""
    return compared_once(clean_run, tmp_path_factory.mktemp("compared-heldout"))


@pytest.fixture(scope="session")
def validated_report(compared_heldout: Compared, tmp_path_factory: pytest.TempPathFactory) -> ValidatedReport:
    """The report of the compared clean run, through the validator, written once: the tests read it, never write it."""
    return validated_report_once(compared_heldout, tmp_path_factory.mktemp("validated-report"))


@pytest.fixture(scope="session")
def systems_heldout(clean_run: CleanRun, tmp_path_factory: pytest.TempPathFactory) -> SystemsCompared:
    """Two evaluations of the tiny corpus (builtin, and k1 whose freeze declares a hypothesis against builtin's), made
    once, and the validator's reports on the aggregates their comparisons read."""
    return systems_compared(clean_run, tmp_path_factory.mktemp("systems"))


@pytest.fixture(scope="session")
def clean_systems_report(systems_heldout: SystemsCompared, tmp_path_factory: pytest.TempPathFactory) -> Report:
    """The validator's report on the genuine held-out comparison between systems, made once."""
    copy = systems_heldout.fresh(tmp_path_factory.mktemp("clean-systems"))
    return validate_systems_comparison(copy.path, known=systems_heldout.known)


@pytest.fixture
def private_heldout_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of the session's held-out record, which the session's other tests append to: a verdict
    reads the record, and one that changed while it was validated is (rightly) not stored."""
    record = tmp_path / "heldout-looks-private.sqlite3"
    with sqlite3.connect(os.environ[RECORD_VARIABLE]) as source, sqlite3.connect(record) as copy:
        source.backup(copy)
    monkeypatch.setenv(RECORD_VARIABLE, str(record))
    return record
