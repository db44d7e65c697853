"""What a validation read, as the stored verdict's key records it: files opened by any library (Python's open,
numpy, SQLite), directories listed, presences decided by a stat; never what the import system reads, never a file
the process wrote itself; and a result cached across validations carries the reads that made it."""

import importlib
import sqlite3
import sys
from pathlib import Path

import numpy as np
import pytest

from harness.validator.core.reading import is_file, recorded_cache, recording


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
