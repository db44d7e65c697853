"""What a validation read, as the stored verdict's key records it: files opened by any library (Python's open,
numpy, SQLite), directories listed, presences decided by a stat; never what the import system reads, never a file
the process wrote itself; and a result cached across validations carries the reads that made it."""

import hashlib
import importlib
import sqlite3
import sys
from pathlib import Path

import numpy as np
import pytest

from harness.validator.core import reading as reading_module
from harness.validator.core.reading import hashed, is_file, known_digest, recorded_cache, recording, settled, stat_of
from harness.validator.verdicts import inputs
from harness.validator.verdicts.inputs import taken


def test_every_kind_of_read_is_recorded(tmp_path: Path) -> None:
    text, vectors, database = tmp_path / "a.json", tmp_path / "v.f32", tmp_path / "ledger.sqlite3"
    text.write_text("{}")
    np.zeros(4, dtype=np.float32).tofile(vectors)
    sqlite3.connect(database).close()
    listed = tmp_path / "listed"
    listed.mkdir()
    with recording() as reading:
        text.read_bytes()
        np.fromfile(vectors, dtype=np.float32)
        connection = sqlite3.connect(database.resolve().as_uri() + "?mode=ro", uri=True)
        connection.close()
        sorted(listed.iterdir())
        assert not is_file(tmp_path / "absent.json")
    assert {str(text), str(vectors), str(database)} <= set(reading.files), reading.files
    assert reading.files[str(tmp_path / "absent.json")] is None
    assert str(database) + "-wal" in reading.journals and str(listed) in reading.listings
    assert reading.broken is None


def test_imports_and_own_writes_are_not_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module = tmp_path / "freshly_imported_for_the_reading_test.py"
    module.write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    written = tmp_path / "written.txt"
    with recording() as reading:
        importlib.import_module("freshly_imported_for_the_reading_test")
        written.write_text("mine")
        written.read_text()
    sys.modules.pop("freshly_imported_for_the_reading_test", None)
    assert str(module) not in reading.files and not any("__pycache__" in path for path in reading.files)
    assert str(written) in reading.written


def test_a_cached_result_carries_its_reads_to_every_later_caller(tmp_path: Path) -> None:
    source = tmp_path / "archive.zip"
    source.write_bytes(b"PK")

    @recorded_cache()
    def derived(path: Path) -> bytes:
        return path.read_bytes()

    with recording() as first:
        derived(source)
    with recording() as second:
        derived(source)  # from the cache: nothing is opened now
    assert str(source) in first.files and str(source) in second.files
    with recording() as third:
        pass
    assert str(source) not in third.files


@pytest.fixture
def settled_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A file counts as settled as soon as it is written (the tests' files are all fresh)."""
    monkeypatch.setattr(reading_module, "SETTLED_NS", -10**12)


@pytest.mark.usefixtures("settled_at_once")
def test_a_digest_a_check_took_keys_the_verdict_while_the_file_stands_still(tmp_path: Path) -> None:
    """The verdict's key takes the sha256 the check took (the model's weights are not hashed twice), through a cached
    result too; once the file's stat differs, that digest is not believed and the reading says it changed."""
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"weights")

    @recorded_cache()
    def weights_digest(path: Path) -> str:
        return hashed(path)

    with recording() as first:
        digest = weights_digest(weights)
    with recording() as later:  # answered from the cache: its digest comes with its reads
        assert weights_digest(weights) == digest
    for reading in (first, later):
        assert known_digest(reading, str(weights)) == digest == "sha256:" + hashlib.sha256(b"weights").hexdigest()
        digests, problem = taken(reading, {})
        assert digests is not None and digests.files[str(weights)] == digest, problem
    weights.write_bytes(b"forged weights")
    assert known_digest(later, str(weights)) is None
    assert taken(later, {}) == (None, f"{weights} changed while it was validated")


@pytest.mark.usefixtures("settled_at_once")
def test_the_key_takes_the_kept_digest_and_hashes_no_file_it_has(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    kept, other = tmp_path / "kept.bin", tmp_path / "other.json"
    kept.write_bytes(b"x" * 1000)
    other.write_text("{}")
    hashed_by_the_key: list[str] = []
    real = inputs.file_digest

    def counted(path: str | Path | None) -> str | None:
        hashed_by_the_key.append(str(path))
        return real(path)

    with recording() as reading:
        hashed(kept)
        other.read_bytes()
    monkeypatch.setattr(inputs, "file_digest", counted)
    digests, _ = taken(reading, {})
    assert digests is not None and set(digests.files) == {str(kept), str(other)}
    assert hashed_by_the_key == [str(other)]


def test_a_file_changed_within_its_filesystems_time_grain_is_hashed_again_for_the_key(tmp_path: Path) -> None:
    """Written just now, a file could be rewritten at the same size with the same stat: its digest is not kept,
    and the key hashes it again."""
    fresh = tmp_path / "fresh.bin"
    fresh.write_bytes(b"now")
    with recording() as reading:
        hashed(fresh)
    assert not settled(stat_of(str(fresh))) and known_digest(reading, str(fresh)) is None
    assert reading.digests == {} and str(fresh) in reading.files
