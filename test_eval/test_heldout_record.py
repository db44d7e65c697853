"""Every held-out look is counted in the per-user record, whatever store it went through: real runs on the tiny
corpus in several stores of one fixture, concurrent writers, a calibration run that writes nothing there, and the
suite's own record in a temporary place. The validator checks a receipt's entry against the record; a ledger
truncated before the held-out runs still passes `freeze.history`, and the bundle states the looks the record holds.
"""

import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from fixtures.archives import TINY_DATASET
from fixtures.clean_checkout import mark_clean_checkout
from harness.corpus.contract import Contract
from harness.evaluation.gates.freeze import freeze_configuration
from harness.evaluation.history import heldout_record
from harness.evaluation.history.ledger import LEDGER
from harness.evaluation.receipts.artifacts import aggregate_name, rows_name
from harness.evaluation.run_split import Evaluation, run_split
from harness.evaluation.runner import ModeRun
from harness.fixture.corpus_fixture import CorpusFixture
from harness.publish.bundle import make_bundle
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.store.store import build_store
from harness.systems.builtin.system import BuiltinSystem
from harness.validator.core.report import Report
from harness.validator.history.check_looks import dataset_of
from harness.validator.history.looks_record import read_record
from harness.validator.pipeline import validate

ROOT = Path(__file__).resolve().parent.parent
MODE = ("fts_only",)


@pytest.fixture
def record(own_heldout_record: Path) -> Path:
    return own_heldout_record


def _calibrate_and_freeze(corpus: CorpusFixture, contract: Contract, root: Path,
                          config: SearchConfig) -> tuple[Path, Path]:
    store, out = root / "store", root / "out"
    built, _ = build_store(store, corpus, contract.namespace, config.lexical)
    run_split(Evaluation(corpus=corpus.path, store_dir=store, output_dir=out, split="calibration", modes=MODE,
                         config=config), contract)
    freeze_configuration(fixture=corpus, system=BuiltinSystem(built, config), contract=contract, modes=MODE,
                         output_dir=out, argv=["test"], allow_dirty=True, replace=False, allow_failed_calibration=False)
    return store, out


def _heldout(corpus: CorpusFixture, contract: Contract, store: Path, out: Path, config: SearchConfig) -> ModeRun:
    [run] = run_split(Evaluation(corpus=corpus.path, store_dir=store, output_dir=out, split="heldout", modes=MODE,
                                 config=config), contract)
    return run


def _looks(run: ModeRun) -> dict[str, Any]:
    looks: dict[str, Any] = run.aggregate["receipt"]["heldout_looks"]
    return looks


def _configuration(run: ModeRun) -> tuple[str, str, str]:
    receipt = run.aggregate["receipt"]
    return receipt["system"]["name"], receipt["system"]["configuration_sha256"], receipt["store"]["store_sha256"]


def _check(report: Report, name: str) -> Any:
    return next(c for c in report.checks + report.attestations if c.name == name)


def test_the_suite_writes_a_temporary_record_never_the_users() -> None:
    named = os.environ.get(heldout_record.RECORD_VARIABLE)
    assert named, "the test session sets SCIFACT_HELDOUT_RECORD"
    assert Path(named).resolve().is_relative_to(Path(tempfile.gettempdir()).resolve())
    assert heldout_record.record_path() == Path(named)
    assert not heldout_record.record_path().is_relative_to(Path.home() / ".cache")


def test_the_record_counts_looks_across_the_stores_of_one_fixture(tiny_corpus: CorpusFixture, tiny: Contract,
                                                                  tmp_path: Path, record: Path) -> None:
    """Three stores, two configurations: each held-out run is one more look, whatever store it went through."""
    configs = {"a": SearchConfig(), "b": SearchConfig(rrf_k=30), "c": SearchConfig()}
    runs: dict[str, ModeRun] = {}
    for name, config in configs.items():
        store, out = _calibrate_and_freeze(tiny_corpus, tiny, tmp_path / name, config)
        assert not record.exists() or len(read_record(record).entries) == len(runs)  # calibration and freeze: none
        runs[name] = _heldout(tiny_corpus, tiny, store, out, config)
    assert _configuration(runs["a"]) != _configuration(runs["b"])
    assert [_looks(runs[n])["looks_before"] for n in "abc"] == [0, 1, 2]
    assert [_looks(runs[n])["other_configurations_before"] for n in "ab"] == [0, 1]
    assert _looks(runs["c"])["other_configurations_before"] == len(
        {_configuration(runs["a"]), _configuration(runs["b"])} - {_configuration(runs["c"])})
    held = read_record(record)
    assert held.problem is None and [e.position for e in held.entries] == [1, 2, 3]
    for position, name in enumerate("abc", start=1):
        entry, look = held.entries[position - 1].value, _looks(runs[name])
        receipt = runs[name].aggregate["receipt"]
        assert look["entry"] == {"position": position, "digest": held.entries[position - 1].digest}
        assert look["record"].startswith(f"{record.name}: $") and str(record.parent) not in look["record"]
        assert look["record_id"] == held.record_id
        assert entry["store_directory"] == str((tmp_path / name / "store").absolute())
        assert (entry["fixture_sha256"], entry["split"], entry["mode"], entry["run_id"], entry["freeze_sha256"]) == (
            tiny_corpus.sha256, "heldout", "fts_only", receipt["run"]["run_id"], receipt["freeze"]["sha256"])
        report = validate(runs[name].aggregate_path, embeddings=False)
        assert _check(report, "heldout.record").status == "pass", _check(report, "heldout.record").line()
        assert f"{position - 1} earlier look" in _check(report, "heldout.looks").detail  # nothing after its entry


def test_a_calibration_run_leaves_the_record_untouched(tiny_corpus: CorpusFixture, tiny: Contract, tmp_path: Path,
                                                      record: Path) -> None:
    run_split(Evaluation(corpus=tiny_corpus.path, store_dir=tmp_path / "store", output_dir=tmp_path / "out",
                         split="calibration"), tiny)
    assert not record.exists()
    heldout_record.append_look(dataset="d", dataset_sha256="sha256:" + "d" * 64,
                               fixture_sha256=tiny_corpus.sha256, split="heldout", mode="fts_only", system="x",
                               configuration_sha256="sha256:" + "c" * 64, store_sha256="sha256:" + "s" * 64,
                               store_directory="/s", freeze_sha256="sha256:" + "z" * 64, host="h", run_id="x/1")
    before = record.read_bytes()
    run_split(Evaluation(corpus=tiny_corpus.path, store_dir=tmp_path / "store", output_dir=tmp_path / "again",
                         split="calibration"), tiny)
    assert record.read_bytes() == before


def test_a_receipt_claiming_the_first_look_after_other_configurations_fails(
        tiny_corpus: CorpusFixture, tiny: Contract, tmp_path: Path, record: Path) -> None:
    for name, config in (("a", SearchConfig()), ("b", SearchConfig(rrf_k=30))):
        store, out = _calibrate_and_freeze(tiny_corpus, tiny, tmp_path / name, config)
        run = _heldout(tiny_corpus, tiny, store, out, config)
    aggregate = json.loads(run.aggregate_path.read_bytes())
    aggregate["receipt"]["heldout_looks"].update(looks_before=0, other_configurations_before=0)
    run.aggregate_path.write_text(json.dumps(aggregate), encoding="utf-8")
    report = validate(run.aggregate_path, embeddings=False)
    assert [c.name for c in report.failed if c.name not in ("source.clean", "source.git")] == ["heldout.record"]
    detail = _check(report, "heldout.record").detail
    assert "the receipt says 0 earlier looks by 0 other configurations; the record shows 1 by 1 before position 2" in (
        detail)
    assert "the first other: look 1: builtin configuration" in detail and str(tmp_path / "a" / "store") in detail


def test_a_record_of_another_id_on_this_host_leaves_the_looks_attested_not_failed(
        tiny_corpus: CorpusFixture, tiny: Contract, tmp_path: Path, record: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A record kept under another SCIFACT_HELDOUT_RECORD (or the run's, replaced): the validator cannot tell which,
    and the record is the publisher's to keep, so the looks are the run's word here, never a FAIL of an honest run."""
    store, out = _calibrate_and_freeze(tiny_corpus, tiny, tmp_path, SearchConfig())
    run = _heldout(tiny_corpus, tiny, store, out, SearchConfig())
    monkeypatch.setenv(heldout_record.RECORD_VARIABLE, str(tmp_path / "elsewhere.sqlite3"))
    heldout_record.append_look(dataset="d", dataset_sha256="sha256:" + "d" * 64,
                               fixture_sha256=tiny_corpus.sha256, split="heldout", mode="fts_only", system="x",
                               configuration_sha256="sha256:" + "c" * 64, store_sha256="sha256:" + "s" * 64,
                               store_directory="/s", freeze_sha256="sha256:" + "z" * 64, host="h", run_id="x/1")
    report = validate(run.aggregate_path, embeddings=False)
    assert [c.name for c in report.failed if c.name not in ("source.clean", "source.git")] == []
    looks = _check(report, "heldout.looks")
    assert "the record here is another: record id" in looks.detail and "not verifiable here" in looks.detail, (
        looks.line())
    assert "attested, a record on the machine that ran it" not in looks.detail


def test_looks_at_the_dataset_in_another_record_here_are_said(
        tiny_corpus: CorpusFixture, tiny: Contract, tmp_path: Path, record: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A peek at the held-out split under another record (another SCIFACT_HELDOUT_RECORD), then the run under a fresh
    one that counts no earlier look: a validator whose record here holds the peek says so on the looks' line."""
    store, out = _calibrate_and_freeze(tiny_corpus, tiny, tmp_path, SearchConfig())
    calibration = json.loads((out / aggregate_name(tiny.namespace, "fts_only", "calibration")).read_bytes())
    name, key = dataset_of(calibration["receipt"])
    peeked = tmp_path / "peeked.sqlite3"
    monkeypatch.setenv(heldout_record.RECORD_VARIABLE, str(peeked))
    heldout_record.append_look(dataset=name, dataset_sha256=key, fixture_sha256=tiny_corpus.sha256, split="heldout",
                               mode="fts_only", system="builtin", configuration_sha256="sha256:" + "c" * 64,
                               store_sha256="sha256:" + "s" * 64, store_directory="/s",
                               freeze_sha256="sha256:" + "z" * 64, host="h", run_id="peek/1")
    time.sleep(1.1)  # the record's times are whole seconds
    monkeypatch.setenv(heldout_record.RECORD_VARIABLE, str(record))
    run = _heldout(tiny_corpus, tiny, store, out, SearchConfig())
    assert _looks(run)["looks_before"] == 0  # the run's own record counts none
    monkeypatch.setenv(heldout_record.RECORD_VARIABLE, str(peeked))
    looks = _check(validate(run.aggregate_path, embeddings=False), "heldout.looks")
    assert "BUT the held-out record found here" in looks.detail and "holds 1 look at this dataset" in looks.detail
    assert "peek/1" not in looks.detail and "builtin configuration sha256:cccc" in looks.detail, looks.line()

    monkeypatch.setenv(heldout_record.RECORD_VARIABLE, str(tmp_path / "none.sqlite3"))  # no other record: no words
    assert "BUT" not in _check(validate(run.aggregate_path, embeddings=False), "heldout.looks").detail


def test_on_this_host_without_a_record_the_looks_are_attested_not_failed(
        tiny_corpus: CorpusFixture, tiny: Contract, tmp_path: Path, record: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader with a cache of their own (no record) on the machine that ran it: not verifiable here, in words."""
    store, out = _calibrate_and_freeze(tiny_corpus, tiny, tmp_path, SearchConfig())
    run = _heldout(tiny_corpus, tiny, store, out, SearchConfig())
    monkeypatch.setenv(heldout_record.RECORD_VARIABLE, str(tmp_path / "a reader's cache" / "none.sqlite3"))
    report = validate(run.aggregate_path, embeddings=False)
    assert "heldout.record" not in [c.name for c in report.checks if c.status != "attested"]
    looks = _check(report, "heldout.looks")
    assert "no held-out record here" in looks.detail and "not verifiable here" in looks.detail, looks.line()


def test_a_look_is_counted_even_when_the_run_dies_at_its_first_search(
        tiny_corpus: CorpusFixture, tiny: Contract, tmp_path: Path, record: Path) -> None:
    store, out = _calibrate_and_freeze(tiny_corpus, tiny, tmp_path, SearchConfig())

    class Killed(BuiltinSystem):
        def search(self, *args: Any, **kwargs: Any) -> Any:
            raise KeyboardInterrupt

    built, _ = build_store(store, tiny_corpus, tiny.namespace, SearchConfig().lexical)
    with pytest.raises(KeyboardInterrupt):
        run_split(Evaluation(corpus=tiny_corpus.path, store_dir=store, output_dir=out, split="heldout", modes=MODE),
                  tiny, fixture=tiny_corpus, system=Killed(built, SearchConfig()))
    [entry] = read_record(record).entries
    assert entry.value["run_id"] == "tiny-test/fts_only/heldout/run-1"
    assert not (out / aggregate_name(TINY_DATASET, "fts_only", "heldout")).exists()


def test_a_damaged_record_stops_the_run_before_the_store_spends_its_turn(
        tiny_corpus: CorpusFixture, tiny: Contract, tmp_path: Path, record: Path) -> None:
    store, out = _calibrate_and_freeze(tiny_corpus, tiny, tmp_path, SearchConfig())
    record.parent.mkdir(parents=True)
    record.write_bytes(b"not a held-out record " * 64)
    with pytest.raises(heldout_record.HeldoutRecordError, match=rf"the held-out record {record} is not the SQLite "
                                                                 "file the harness writes .* restore it from a copy"):
        _heldout(tiny_corpus, tiny, store, out, SearchConfig())
    assert record.read_bytes() == b"not a held-out record " * 64
    with closing(sqlite3.connect(store / LEDGER)) as connection:
        assert connection.execute("SELECT COUNT(*) FROM runs WHERE split = 'heldout'").fetchone() == (0,)
    record.unlink()
    assert _looks(_heldout(tiny_corpus, tiny, store, out, SearchConfig()))["entry"]["position"] == 1


APPEND = """
import sys
from harness.evaluation.history.heldout_record import append_look
writer = sys.argv[1]
for n in range(int(sys.argv[2])):
    append_look(dataset="d", dataset_sha256="sha256:" + "d" * 64, fixture_sha256="sha256:" + "f" * 64,
                split="heldout", mode="fts_only", system="w" + writer,
                configuration_sha256="sha256:" + "c" * 64, store_sha256="sha256:" + "s" * 64,
                store_directory="/stores/" + writer, freeze_sha256="sha256:" + "z" * 64, host="h",
                run_id=f"{writer}/{n}")
"""


def test_concurrent_writers_lose_no_entry(record: Path) -> None:
    writers, each = 4, 15
    processes = [subprocess.Popen([sys.executable, "-c", APPEND, str(w), str(each)], cwd=ROOT,
                                  stderr=subprocess.PIPE, text=True) for w in range(writers)]
    for process in processes:
        _, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
    held = read_record(record)
    assert held.problem is None
    assert [e.position for e in held.entries] == list(range(1, writers * each + 1))
    assert sorted(e.value["run_id"] for e in held.entries) == sorted(f"{w}/{n}" for w in range(writers)
                                                                     for n in range(each))
    for w in range(writers):  # each writer's own entries in its own order
        mine = [e.value["run_id"] for e in held.entries if e.value["system"] == f"w{w}"]
        assert mine == [f"{w}/{n}" for n in range(each)]
    with closing(sqlite3.connect(record)) as connection, pytest.raises(sqlite3.IntegrityError, match="append-only"):
        connection.execute("DELETE FROM looks WHERE position = 1")


def _truncate_ledger_before_heldout(store: Path) -> None:
    """Whoever can write the store cuts its history back to the freeze: a valid prefix of the chain, runs to match."""
    with closing(sqlite3.connect(store / LEDGER, isolation_level=None)) as connection:
        (freeze,) = connection.execute("SELECT MAX(position) FROM history WHERE event LIKE '%\"freeze\"%'").fetchone()
        connection.execute("DROP TRIGGER history_no_delete")
        connection.execute("DELETE FROM history WHERE position > ?", (freeze,))
        connection.execute("DELETE FROM requests WHERE run_id IN (SELECT run_id FROM runs WHERE split = 'heldout')")
        connection.execute("DELETE FROM runs WHERE split = 'heldout'")


def test_a_truncated_ledger_passes_freeze_history_but_the_bundle_states_the_record(
        tiny_corpus: CorpusFixture, tiny: Contract, tmp_path: Path, record: Path) -> None:
    store, out = _calibrate_and_freeze(tiny_corpus, tiny, tmp_path, SearchConfig())
    _heldout(tiny_corpus, tiny, store, out, SearchConfig())
    _truncate_ledger_before_heldout(store)
    for name in (rows_name(TINY_DATASET, "fts_only", "heldout"),
                 aggregate_name(TINY_DATASET, "fts_only", "heldout")):
        (out / name).unlink()
    again = _heldout(tiny_corpus, tiny, store, out, SearchConfig())
    assert again.aggregate["receipt"]["run"]["run_id"] == "tiny-test/fts_only/heldout/run-1"  # the ledger forgot
    assert _looks(again)["looks_before"] == 1  # the record did not
    mark_clean_checkout(out)
    report = validate(again.aggregate_path, embeddings=False)
    history = _check(report, "freeze.history")
    assert history.status == "pass" and "the ledger as presented shows" in history.detail
    assert "a ledger truncated or replaced by whoever can write the store would show none too" in history.detail
    assert _check(report, "heldout.record").status == "pass"
    bundle = make_bundle(out, tmp_path / "bundle")
    stated = ("Held-out looks: 1 configuration (system, configuration digest, store digest) saw tiny-test's "
              "held-out split on this machine, whatever fixture build they ran, in 2 held-out or all-query runs in "
              f"all: read now from this machine's held-out record (id {read_record(record).record_id})")
    assert stated in (bundle / "CLAIMS.md").read_text(encoding="utf-8")
    assert stated in (bundle / "report.md").read_text(encoding="utf-8")
    assert "attested" in (bundle / "report.html").read_text(encoding="utf-8")
