"""`heldout.record`, one forgery at a time: the clean run's held-out receipts against a private copy of this machine's
held-out record. Each test changes one thing (the entry's digest, one field of the entry with its chain digest
recomputed as a forger would, the earlier looks' times, the other configurations' count, an entry's text under its
old digest, a look on a calibration receipt, the dataset's key where no record is at hand) and the check fails,
naming it."""

import json
import os
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from harness.evaluation.history.heldout_record import RECORD_VARIABLE
from harness.validator.core.digests import canonical, sha256_bytes
from harness.validator.core.report import Report
from harness.validator.history import looks_record
from harness.validator.history.check_looks import dataset_of
from harness.validator.history.ledger_chain import chain_digest
from harness.validator.pipeline import validate

from .support import CleanRun, Json, RunCopy

MODES = ("fts_only", "vector_only", "hybrid")
ENTRY_FIELDS = ("dataset", "dataset_sha256", "fixture_sha256", "split", "mode", "system", "configuration_sha256",
                "store_sha256", "freeze_sha256", "run_id", "host", "machine_id")


def _check(report: Report, name: str = "heldout.record") -> Any:
    return next(c for c in report.checks + report.attestations if c.name == name)


@pytest.fixture
def record(clean_run: CleanRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of the record the clean run's looks went into (same record id), named as this machine's."""
    copy = tmp_path / "looks" / looks_record.RECORD_NAME
    copy.parent.mkdir()
    source = Path(os.environ[RECORD_VARIABLE])
    with closing(sqlite3.connect(source)) as live, closing(sqlite3.connect(copy)) as kept:
        live.backup(kept)
    with closing(sqlite3.connect(copy)) as connection, connection:  # a forger who can write the file drops these
        connection.execute("DROP TRIGGER looks_no_update")
        connection.execute("DROP TRIGGER looks_no_delete")
    monkeypatch.setenv(RECORD_VARIABLE, str(copy))
    return copy


def _latest(copy: RunCopy) -> str:
    """The held-out mode with the most earlier looks recorded before it (the last of the run's three)."""
    return max(MODES, key=lambda mode: copy.aggregate(mode, "heldout")["receipt"]["heldout_looks"]["looks_before"])


def _looks(copy: RunCopy, mode: str) -> Json:
    looks: Json = copy.aggregate(mode, "heldout")["receipt"]["heldout_looks"]
    return looks


def test_the_clean_receipts_pass_against_the_copy(run_copy: RunCopy, record: Path) -> None:
    for mode in MODES:
        check = _check(validate(run_copy.aggregate_path(mode, "heldout"), embeddings=False))
        assert check.status == "pass", check.line()
    assert _looks(run_copy, _latest(run_copy))["looks_before"] >= 2


def test_an_entry_digest_the_record_does_not_hold_fails(run_copy: RunCopy, record: Path) -> None:
    mode = _latest(run_copy)
    path = run_copy.edit_receipt(mode, "heldout", lambda r: r["heldout_looks"]["entry"].update(
        digest=sha256_bytes(b"another entry")))
    check = _check(validate(path, embeddings=False))
    assert check.status == "fail" and "the receipt sha256:" in check.detail, check.line()


def _forge_entry(record: Path, position: int, change: dict[str, Any]) -> str:
    """The entry at `position` rewritten with `change`, its digest recomputed from the one before it (as a forger
    who can write the record would); the new digest."""
    with closing(sqlite3.connect(record)) as connection, connection:
        text, previous = connection.execute("SELECT entry, previous_digest FROM looks WHERE position = ?",
                                            (position,)).fetchone()
        value = {**json.loads(text), **change}
        forged = canonical(value).decode()
        digest = chain_digest(previous, forged)
        connection.execute("UPDATE looks SET entry = ?, digest = ? WHERE position = ?", (forged, digest, position))
    return digest


@pytest.mark.parametrize("field", ENTRY_FIELDS)
def test_each_field_of_the_entry_is_held_to_the_receipt(field: str, run_copy: RunCopy, record: Path) -> None:
    """The entry is rewritten with one field another's and its chain digest recomputed, and the receipt names the
    new digest: only the field itself tells the entry is another run's."""
    mode = _latest(run_copy)
    position = _looks(run_copy, mode)["entry"]["position"]
    digest = _forge_entry(record, position, {field: f"forged {field}"})
    path = run_copy.edit_receipt(mode, "heldout", lambda r: r["heldout_looks"]["entry"].update(digest=digest))
    check = _check(validate(path, embeddings=False))
    assert check.status == "fail", check.line()
    assert f"another run's: it differs from the receipt in {field} (" in check.detail, check.line()


def test_the_earlier_looks_times_are_held_to_the_record(run_copy: RunCopy, record: Path) -> None:
    mode = _latest(run_copy)
    times = list(_looks(run_copy, mode)["earlier_looks_at"])
    forged = [times[0].replace(times[0][:4], str(int(times[0][:4]) - 1), 1), *times[1:]]
    path = run_copy.edit_receipt(mode, "heldout", lambda r: r["heldout_looks"].update(earlier_looks_at=forged))
    check = _check(validate(path, embeddings=False))
    assert check.status == "fail" and f"the receipt dates the earlier looks {forged}" in check.detail, check.line()


def test_the_other_configurations_are_counted_by_the_record(run_copy: RunCopy, record: Path) -> None:
    mode = _latest(run_copy)
    stated = _looks(run_copy, mode)["other_configurations_before"]
    path = run_copy.edit_receipt(mode, "heldout", lambda r: r["heldout_looks"].update(
        other_configurations_before=stated + 1))
    check = _check(validate(path, embeddings=False))
    assert check.status == "fail" and f"by {stated + 1} other configuration" in check.detail, check.line()


def test_an_entry_rewritten_under_its_old_digest_breaks_the_chain(run_copy: RunCopy, record: Path) -> None:
    """An earlier entry's text changed, its digest left: the chain no longer recomputes up to the receipt's entry."""
    mode = _latest(run_copy)
    position = _looks(run_copy, mode)["entry"]["position"]
    with closing(sqlite3.connect(record)) as connection, connection:
        text = connection.execute("SELECT entry FROM looks WHERE position = ?", (position - 1,)).fetchone()[0]
        value = json.loads(text)
        value["host"] = value["host"] + "x"
        connection.execute("UPDATE looks SET entry = ? WHERE position = ?", (canonical(value).decode(), position - 1))
    assert looks_record.read_record(record, position).problem is not None
    check = _check(validate(run_copy.aggregate_path(mode, "heldout"), embeddings=False))
    assert check.status == "fail", check.line()
    assert f"the record's chain does not recompute: position {position - 1}: the digest" in check.detail, check.line()


def test_a_record_with_a_gap_in_its_positions_breaks_the_chain(run_copy: RunCopy, record: Path) -> None:
    mode = _latest(run_copy)
    with closing(sqlite3.connect(record)) as connection, connection:
        connection.execute("DELETE FROM looks WHERE position = 1")
    problem = looks_record.read_record(record).problem
    assert problem is not None and problem.startswith("position 2 where 1 is due"), problem
    assert _check(validate(run_copy.aggregate_path(mode, "heldout"), embeddings=False)).status == "fail"


def test_a_calibration_receipt_carrying_a_look_fails(run_copy: RunCopy, record: Path) -> None:
    looks = _looks(run_copy, "fts_only")
    path = run_copy.edit_receipt("fts_only", "calibration", lambda r: r.update(heldout_looks=looks))
    check = _check(validate(path, embeddings=False))
    assert check.status == "fail" and "looks at no held-out split" in check.detail, check.line()


def test_without_the_record_the_receipts_dataset_key_is_still_checked(run_copy: RunCopy, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """No record here (a reader's machine): the looks are the run's word, but the dataset they are counted under is
    the validator's own rule, and a receipt keyed otherwise fails."""
    monkeypatch.setenv(RECORD_VARIABLE, str(tmp_path / "a reader's" / "none.sqlite3"))
    mode = _latest(run_copy)
    clean = validate(run_copy.aggregate_path(mode, "heldout"), embeddings=False)
    assert "heldout.record" not in [c.name for c in clean.checks]
    assert _check(clean, "heldout.looks").status == "attested"
    path = run_copy.edit_receipt(mode, "heldout", lambda r: r["heldout_looks"]["dataset"].update(
        sha256=sha256_bytes(b"another dataset")))
    check = _check(validate(path, embeddings=False))
    assert check.status == "fail" and "the looks are counted per dataset" in check.detail, check.line()


def test_the_dataset_key_is_the_pins_name_content_and_calibration_count(run_copy: RunCopy) -> None:
    """The key the validator derives is the one the harness wrote into the record, and each of its parts moves it."""
    receipt = run_copy.aggregate("fts_only", "heldout")["receipt"]
    name, key = dataset_of(receipt)
    assert (name, key) == (_looks(run_copy, "fts_only")["dataset"]["name"],
                           _looks(run_copy, "fts_only")["dataset"]["sha256"])
    content = receipt["corpus"]["payload_hashes"]
    count = receipt["corpus"]["contract"]["calibration_count"]
    base = looks_record.dataset_key(name, content, count)
    assert base == key
    assert looks_record.dataset_key(name, content, count + 1) != base
    assert looks_record.dataset_key(name + "x", content, count) != base
    for part in ("documents", "queries", "qrels"):
        assert looks_record.dataset_key(name, {**content, part: "sha256:" + "0" * 64}, count) != base, part
    assert looks_record.dataset_key(name, {**content, "other": "x"}, count) == base
    unpinned = json.loads(json.dumps(receipt))
    unpinned["corpus"]["payload_hashes"]["qrels"] = "sha256:" + "1" * 64
    assert dataset_of(unpinned)[1] == looks_record.dataset_key(
        receipt["corpus"].get("ir_datasets_id") or receipt["corpus"]["contract"]["name"],
        unpinned["corpus"]["payload_hashes"], count) != key



def _value(**change: Any) -> dict[str, Any]:
    value = {"fixture_sha256": "sha256:f1", "split": "heldout", "mode": "hybrid", "system": "builtin",
             "configuration_sha256": "sha256:c1", "store_sha256": "sha256:s1", "store_directory": "/stores/a",
             "freeze_sha256": "sha256:z1", "recorded_at": "2026-01-02T03:04:05Z", "host": "lab", "run_id": "r/1",
             "dataset": "tiny-test", "dataset_sha256": "sha256:d1", "machine_id": None}
    return {**value, **change}


def test_an_earlier_look_is_described_by_every_field_that_tells_it_apart() -> None:
    entry = looks_record.Entry(4, "sha256:e4", _value())
    assert entry.describe() == ("look 4: builtin configuration sha256:c1 on store sha256:s1 (/stores/a), hybrid "
                                "heldout, 2026-01-02T03:04:05Z")


def test_an_entry_naming_no_dataset_counts_as_a_look_at_its_very_fixture() -> None:
    """An entry written before entries named their dataset counts for the fixture it names, and only for it."""
    legacy = {k: v for k, v in _value().items() if k not in ("dataset", "dataset_sha256", "machine_id")}
    entries = [looks_record.Entry(1, "sha256:e1", legacy),
               looks_record.Entry(2, "sha256:e2", {**legacy, "fixture_sha256": "sha256:f2"}),
               looks_record.Entry(3, "sha256:e3", _value(fixture_sha256="sha256:f2")),
               looks_record.Entry(4, "sha256:e4", _value(dataset_sha256="sha256:d2"))]
    record = looks_record.Record(Path("r"), "id", entries, None)
    assert [e.position for e in record.before(5, "sha256:d1", "sha256:f1")] == [1, 3]
    assert [e.position for e in record.before(5, "sha256:d2", "sha256:f2")] == [2, 4]
    assert [e.position for e in record.before(3, "sha256:d1", "sha256:f1")] == [1]


def test_the_rows_digest_binds_the_record_id(record: Path, tmp_path: Path) -> None:
    """A verdict keyed by the rows it read is not reused on a record of another id holding the same rows."""
    other = tmp_path / "other.sqlite3"
    with closing(sqlite3.connect(record)) as live, closing(sqlite3.connect(other)) as copy:
        live.backup(copy)
    with closing(sqlite3.connect(other)) as connection, connection:
        connection.execute("DROP TRIGGER IF EXISTS meta_no_update")
        connection.execute("UPDATE meta SET value = 'another id' WHERE key = 'record_id'")
    assert looks_record.rows_digest(str(record), 2) != looks_record.rows_digest(str(other), 2) is not None
    with closing(sqlite3.connect(other)) as connection, connection:
        connection.execute("DELETE FROM meta")
    assert looks_record.rows_digest(str(other), 2) not in (None, looks_record.rows_digest(str(record), 2))
