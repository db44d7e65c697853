"""Stored verdicts: an aggregate validated once per bytes read and validator, and never believed otherwise.

Each test validates a private copy of the clean tiny run through `validate_stored` (as the CLI, compare, bundle and
report do), with the session's own key (fixtures/validator_key.py). A verdict is reused only for the same bytes,
validator and options under a seal this key made; an edited verdict, one copied to other bytes, one another
validator source made, one under another key, and one whose inputs changed are all validated again, and the line
the validator prints says why.
"""

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.validator.core.digests import sha256_file
from harness.validator.core.report import Report
from harness.validator.embedding.embedders import model_directory
from harness.validator.stored import Options, Subject, validate_stored
from harness.validator.verdicts import identity
from harness.validator.verdicts.key import KEY_VARIABLE, key_path, load_key, seal
from harness.validator.verdicts.store import verdict_file

from .support import RunCopy

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [pytest.mark.real_model, pytest.mark.usefixtures("private_heldout_record")]
MODE, SPLIT = "fts_only", "heldout"


class Said(list[str]):
    def __call__(self, line: str) -> None:
        self.append(line)


def validated(aggregate: Path, **subject: Path) -> tuple[Report, str]:
    said = Said()
    report = validate_stored(Subject(aggregate, **subject), say=said)
    [line] = said
    return report, line


def stored_once(copy: RunCopy) -> tuple[Path, Report]:
    aggregate = copy.aggregate_path(MODE, SPLIT)
    report, line = validated(aggregate)
    assert ": validated (no stored verdict); verdict stored in" in line, line
    return aggregate, report


def summary(report: Report) -> list[tuple[str, str]]:
    return [(check.name, check.status) for check in (*report.checks, *report.attestations)]


@pytest.fixture
def own_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A key of this test's own (the forgeries below need to know it)."""
    monkeypatch.setenv(KEY_VARIABLE, str(tmp_path / "key" / "validator-key"))
    yield key_path()


def test_the_same_bytes_are_validated_once(run_copy: RunCopy, own_key: Path) -> None:
    aggregate, first = stored_once(run_copy)
    stored = verdict_file(run_copy.out, aggregate, "sample")
    assert stored.is_file() and own_key.is_file() and own_key.stat().st_mode & 0o777 == 0o600
    again, line = validated(aggregate)
    assert "reused the verdict stored in" in line and "same bytes read, same validator" in line, line
    assert summary(again) == summary(first) and again.eligible == first.eligible
    assert again.notes["stored_verdict"]["reused"] is True and "STORED" in "\n".join(again.lines())
    document = json.loads(stored.read_text(encoding="utf-8"))
    read = document["read"]
    assert set(read["roles"]) == {"aggregate", "rows", "freeze"} and all(read["roles"].values())
    assert str(run_copy.clean.fixture_path) in read["files"], sorted(read["files"])
    assert str(run_copy.clean.store_dir / "ledger.sqlite3") in read["files"], sorted(read["files"])
    assert document["validator"]["source_sha256"] == identity.source_digest()


def test_a_snapshot_of_the_same_bytes_reuses_the_verdict_kept_at_home(run_copy: RunCopy, own_key: Path,
                                                                   tmp_path: Path) -> None:
    """As compare, bundle and report validate a private copy of the bytes they read, against its freeze record."""
    aggregate, first = stored_once(run_copy)
    snapshot = tmp_path / "snapshot"
    snapshot.mkdir()
    for path in (aggregate, run_copy.rows_path(MODE, SPLIT), run_copy.freeze_path):
        (snapshot / path.name).write_bytes(path.read_bytes())
    again, line = validated(snapshot / aggregate.name, freeze=snapshot / "freeze.json", home=run_copy.out)
    assert "reused" in line, line
    assert summary(again) == summary(first) and again.subject == str(snapshot / aggregate.name)


def test_a_changed_input_is_validated_again_and_named(run_copy: RunCopy, own_key: Path) -> None:
    aggregate, _ = stored_once(run_copy)
    rows = run_copy.rows_path(MODE, SPLIT)
    rows.write_bytes(rows.read_bytes() + b"\n")
    report, line = validated(aggregate)
    assert "validated (" in line and "the rows changed since" in line, line
    assert report.failed and report.notes["stored_verdict"]["reused"] is False
    store = run_copy.copy_store()  # the receipts now name another store, with a ledger of other bytes
    with (store / "ledger.sqlite3").open("ab") as handle:
        handle.write(b"\0")
    _, line = validated(aggregate)
    assert "validated (" in line and "changed since" in line, line


def test_an_edited_verdict_is_not_believed(run_copy: RunCopy, own_key: Path) -> None:
    aggregate, first = stored_once(run_copy)
    stored = verdict_file(run_copy.out, aggregate, "sample")
    document = json.loads(stored.read_text(encoding="utf-8"))
    checks = document["report"]["checks"]
    edited = [{**check, "status": "pass"} for check in checks]
    edited[0]["detail"] = f"{edited[0].get('detail', '')} (edited)"  # an edit even when every check passed already
    document["report"]["checks"] = edited
    stored.write_text(json.dumps(document), encoding="utf-8")
    report, line = validated(aggregate)
    assert "its seal does not verify" in line, line
    assert summary(report) == summary(first)


def test_a_verdict_copied_to_other_bytes_is_not_believed(run_copy: RunCopy, own_key: Path) -> None:
    aggregate, _ = stored_once(run_copy)
    other = run_copy.aggregate_path("hybrid", SPLIT)
    target = verdict_file(run_copy.out, other, "sample")
    target.write_bytes(verdict_file(run_copy.out, aggregate, "sample").read_bytes())
    report, line = validated(other)
    assert "the aggregate" in line and "changed since" in line, line
    assert report.notes["stored_verdict"]["reused"] is False and "replay.fusion" in {c.name for c in report.checks}


def test_a_verdict_of_another_validator_source_is_not_believed(run_copy: RunCopy, own_key: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    aggregate, _ = stored_once(run_copy)
    stored = verdict_file(run_copy.out, aggregate, "sample")
    document = json.loads(stored.read_text(encoding="utf-8"))
    document["validator"]["source_sha256"] = "sha256:" + "0" * 64  # sealed properly, by another validator
    document["seal"] = seal(document, load_key())
    stored.write_text(json.dumps(document), encoding="utf-8")
    _, line = validated(aggregate)
    assert "the validator's source changed since" in line, line


def test_a_verdict_under_another_key_is_not_believed(run_copy: RunCopy, own_key: Path,
                                                     monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    aggregate, _ = stored_once(run_copy)
    monkeypatch.setenv(KEY_VARIABLE, str(tmp_path / "another" / "validator-key"))
    _, line = validated(aggregate)
    assert "its seal does not verify" in line, line


def test_a_key_open_to_others_stores_and_believes_nothing(run_copy: RunCopy, own_key: Path) -> None:
    aggregate, _ = stored_once(run_copy)
    os.chmod(own_key, 0o644)
    report, line = validated(aggregate)
    assert "nothing stored" in line and "chmod 600" in line, line
    assert report.notes["stored_verdict"]["reused"] is False


def test_other_options_are_validated_again_and_a_check_not_verified_is_not_kept(run_copy: RunCopy,
                                                                               own_key: Path) -> None:
    """Without re-embedding, embeddings.model is not verified: such a verdict is never stored, never reused."""
    aggregate, _ = stored_once(run_copy)
    for _ in range(2):
        said = Said()
        validate_stored(Subject(aggregate), Options(embeddings=False), say=said)
        assert "(no stored verdict); nothing stored: 1 check(s) could not be verified here" in said[0], said
    assert not verdict_file(run_copy.out, aggregate, "none").exists()


def test_a_sample_answered_by_the_kept_re_embedding_is_stored_as_the_full_verdict(run_copy: RunCopy,
                                                                                  own_key: Path) -> None:
    """Once this validator keeps a full re-embedding of the fixture, a quick validation is a full one (no model is
    asked): it is stored as the full verdict, which the bundle then reuses."""
    full = Options(full_embedding=True)
    validate_stored(Subject(run_copy.aggregate_path("hybrid", "calibration")), full, say=Said())  # kept from here
    aggregate = run_copy.aggregate_path(MODE, SPLIT)
    report, line = validated(aggregate)
    assert report.notes["embedding_check"]["covering"] == "sample", report.notes
    assert line.endswith(str(verdict_file(run_copy.out, aggregate, "full"))), line
    assert not verdict_file(run_copy.out, aggregate, "sample").exists()
    said = Said()
    again = validate_stored(Subject(aggregate), full, say=said)
    assert "reused the verdict stored in" in said[0] and summary(again) == summary(report), said


OPENED: list[str] = []
_COUNTING: list[bool] = []


def _count_opens(event: str, args: tuple[object, ...]) -> None:
    if _COUNTING and event == "open" and isinstance(args[0], str):
        OPENED.append(args[0])


def test_the_models_weights_are_read_once_for_the_check_and_the_verdicts_key(run_copy: RunCopy,
                                                                            own_key: Path) -> None:
    """The model's weights (about 90 MB) are read at most once in a process by Python (the model itself loads them
    natively), for the re-embedding's check, the verdict's key and the next lookup alike; the key holds the digest
    of every model file."""
    if not _COUNTING:
        sys.addaudithook(_count_opens)
    OPENED.clear()
    _COUNTING[:] = [True]
    try:
        aggregate, _ = stored_once(run_copy)
        _, line = validated(aggregate)
    finally:
        _COUNTING.clear()
    assert "reused the verdict stored in" in line, line
    model = model_directory()
    weights = str(model / "model.safetensors")
    assert OPENED.count(weights) <= 1, OPENED.count(weights)
    read = json.loads(verdict_file(run_copy.out, aggregate, "sample").read_text(encoding="utf-8"))["read"]["files"]
    files = {str(p) for p in model.rglob("*") if p.is_file()}
    assert {path for path in read if Path(path).is_relative_to(model)} == files, sorted(read)
    assert read[weights] == sha256_file(Path(weights))


def test_a_bytecode_cache_appearing_leaves_the_verdict_standing(run_copy: RunCopy, own_key: Path) -> None:
    """A system's worker may write __pycache__ beside the modules the validator listed; no check reads it."""
    store = run_copy.copy_store()  # a store of this test's own: the session's clean run stays untouched
    aggregate, _ = stored_once(run_copy)
    listed = json.loads(verdict_file(run_copy.out, aggregate, "sample").read_text(encoding="utf-8"))["read"]["listings"]
    mine = [Path(directory) for directory in listed if Path(directory).is_relative_to(store)]
    assert mine, sorted(listed)
    (mine[0] / "__pycache__").mkdir(exist_ok=True)
    _, line = validated(aggregate)
    assert "reused the verdict stored in" in line, line
    (mine[0] / "added.txt").write_text("a new name in a listed directory\n", encoding="utf-8")
    _, line = validated(aggregate)
    assert "validated (" in line and "the listing of" in line, line


def test_the_interpreter_is_one_under_each_of_its_names() -> None:
    """`make calibration` runs `.venv/bin/python`, the console scripts `.venv/bin/python3`: one interpreter, so one
    environment, and a verdict or re-embedding kept by one is reused by the other."""
    names = [Path(sys.executable).with_name(name) for name in ("python", "python3")]
    assert all(path.exists() for path in names), names
    probe = "from harness.validator.verdicts.identity import environment_digest; print(environment_digest())"
    digests = {subprocess.run([str(path), "-c", probe], capture_output=True, text=True, check=True, timeout=120,
                              cwd=ROOT).stdout.strip() for path in names}
    assert len(digests) == 1 and identity.environment_digest() in digests, digests
