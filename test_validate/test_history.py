"""The validator reads the store's history itself: a held-out receipt produced out of turn is refused even when
the forger got past the runner's gate, and runs in turn stay eligible.

Each test runs on its own copy of the clean run's output directory and store (calibration, freeze, held-out
of the three modes), and runs the harness again on that copy.
"""

import json
from dataclasses import dataclass

import pytest

from fixtures.archives import TINY_DATASET, tiny_contract
from harness.evaluation.gates.freeze import current_record
from harness.evaluation.history import ledger
from harness.evaluation.receipts.artifacts import aggregate_name, rows_name
from harness.evaluation.runner import ModeRun, run_mode
from harness.fixture.corpus_fixture import CorpusFixture, load_fixture
from harness.modes import SEARCHED as MODES
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.store.store import Store, open_store
from harness.systems.builtin.system import BuiltinSystem
from harness.validator.core.report import Report
from harness.validator.pipeline import validate

from .support import RunCopy, append_event, assert_fails, check_named, describe, history_event


@dataclass(frozen=True)
class Harness:
    """The harness pointed at a test's private copy of the clean run's store and output directory."""

    copy: RunCopy
    fixture: CorpusFixture
    store: Store

    @classmethod
    def open(cls, copy: RunCopy) -> "Harness":
        fixture = load_fixture(copy.clean.fixture_path)
        return cls(copy, fixture, open_store(copy.copy_store(), fixture, tiny_contract().namespace,
                                             SearchConfig().lexical))

    def run(self, mode: str, split: str, freeze: dict[str, str] | None) -> ModeRun:
        return run_mode(mode=mode, split=split, fixture=self.fixture, contract=tiny_contract(),
                        system=BuiltinSystem(self.store, SearchConfig()), top_k=10, output_dir=self.copy.out,
                        replace=True, argv=["test"], freeze=freeze)


def _forged_freeze(harness: Harness) -> dict[str, str]:
    """A freeze record written by hand: valid, with its own freeze_sha256, never recorded by the freeze command;
    the held-out receipt of fts_only deleted."""
    copy = harness.copy
    record = current_record(fixture=harness.fixture, system=BuiltinSystem(harness.store, SearchConfig()),
                            contract=tiny_contract(), modes=MODES, argv=["by hand"], allow_dirty=True)
    copy.freeze_path.write_text(json.dumps(record, indent=1), encoding="utf-8")
    for name in (rows_name(TINY_DATASET, "fts_only", "heldout"), aggregate_name(TINY_DATASET, "fts_only", "heldout")):
        (copy.out / name).unlink()
    return {"path": str(copy.freeze_path), "sha256": record["freeze_sha256"]}


def _bypass_the_gate(monkeypatch: pytest.MonkeyPatch, freeze_event: ledger.EventRef) -> None:
    """The forger's own copy of the harness: the runner's history check answers yes, naming `freeze_event`."""
    monkeypatch.setattr(ledger, "_check_turn", lambda *args: freeze_event)


def _history_problems(report: Report) -> str:
    check = check_named(report, "freeze.history")
    return f"{check.detail} {check.found!r}"


def test_a_hand_written_freeze_run_past_the_gate_is_refused(run_copy: RunCopy,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    harness = Harness.open(run_copy)
    freeze = _forged_freeze(harness)
    with pytest.raises(ledger.HistoryError, match=f"records no freeze {freeze['sha256']}"):
        harness.run("fts_only", "heldout", freeze)
    position, _ = history_event(harness.store.directory, "freeze")
    _bypass_the_gate(monkeypatch, ledger.history(harness.store.directory)[position - 1].ref)
    run = harness.run("fts_only", "heldout", freeze)
    assert run.aggregate["receipt"]["run"]["run_id"] == "tiny-test/fts_only/heldout/run-2"
    report = validate(run.aggregate_path, embeddings=False)
    assert_fails(report, ("freeze.history",))
    problems = _history_problems(report)
    assert f"the ledger holds no freeze event for {freeze['sha256']}" in problems, describe(report)
    assert "an earlier heldout run of fts_only: heldout run tiny-test/fts_only/heldout/run-1" in problems


def test_a_freeze_event_appended_by_hand_after_heldout_is_refused(run_copy: RunCopy,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The ledger edited by hand: a freeze event appended to the chain, correctly chained, after the held-out
    runs. The runner still refuses the second held-out run; past its gate, the validator refuses the receipt."""
    harness = Harness.open(run_copy)
    freeze = _forged_freeze(harness)
    record = json.loads(run_copy.freeze_path.read_text(encoding="utf-8"))
    position, digest = append_event(harness.store.directory, {
        "event": "freeze", "freeze_sha256": freeze["sha256"], "modes": list(MODES),
        "created_at": record["created_at"], "output_dir": str(run_copy.out)})
    with pytest.raises(ledger.HistoryError, match="a held-out run of fts_only was already started on this store"):
        harness.run("fts_only", "heldout", freeze)
    _bypass_the_gate(monkeypatch, ledger.EventRef(position, digest))
    run = harness.run("fts_only", "heldout", freeze)
    report = validate(run.aggregate_path, embeddings=False)
    assert_fails(report, ("freeze.history",))
    problems = _history_problems(report)
    first, event = history_event(harness.store.directory, "run-started", split="heldout")
    assert (f"heldout run {event['run_id']} (position {first}, started {event['started_at']}) was started before "
            f"freeze {freeze['sha256']} (position {position})") in problems, describe(report)
    assert "an earlier heldout run of fts_only" in problems


def test_runs_in_turn_after_the_heldout_runs_leave_every_receipt_eligible(run_copy: RunCopy) -> None:
    """A calibration run after the held-out ones is fine, and the held-out receipts still pass."""
    run = Harness.open(run_copy).run("hybrid", "calibration", None)
    assert run.aggregate["receipt"]["run"]["sequence"] == 2
    for path in (run.aggregate_path, run_copy.aggregate_path("hybrid", "heldout")):
        report = validate(path, embeddings=False)
        assert_fails(report, ())
        assert {check_named(report, name).status for name in ("ledger.file", "ledger.chain", "ledger.run",
                                                              "freeze.history")} == {"pass"}


def test_the_validator_never_writes_the_ledger(run_copy: RunCopy) -> None:
    ledger_path = run_copy.copy_store() / ledger.LEDGER
    before = ledger_path.read_bytes()
    for mode in MODES:
        assert_fails(validate(run_copy.aggregate_path(mode, "heldout"), embeddings=False), ())
    assert ledger_path.read_bytes() == before
