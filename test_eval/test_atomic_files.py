"""Files written together (a report and its Markdown version, a split's exports): a failure while writing any of
them changes none, and no temporary file is left behind."""

from pathlib import Path

import pytest

from harness.atomic import write_all_atomic


def test_a_failure_while_writing_changes_none_of_the_files(tmp_path: Path) -> None:
    first, blocked = tmp_path / "report.html", tmp_path / "a-file" / "report.md"
    first.write_bytes(b"earlier report")
    (tmp_path / "a-file").write_bytes(b"not a directory")
    with pytest.raises(OSError):
        write_all_atomic({first: b"new report", blocked: b"new markdown"})
    assert first.read_bytes() == b"earlier report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "report.html"]


def test_every_file_is_written_when_nothing_fails(tmp_path: Path) -> None:
    files = {tmp_path / "out" / "a.run": b"q1 Q0 d1 1 2 tag\n", tmp_path / "out" / "b.qrels": b"q1 0 d1 1\n"}
    write_all_atomic(files)
    assert {path: path.read_bytes() for path in files} == files
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["a.run", "b.qrels"]
