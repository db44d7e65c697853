"""Files written together (a report and its Markdown version, a split's exports): a failure while writing any of
them changes none, and no temporary file is left behind. Files created together (a new system's skeleton): all or
none, and never over a file that exists."""

import errno
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.atomic import create_all_atomic, write_all_atomic, write_bytes_atomic, write_file
from harness.cli.parsing.errors import describe
from harness.errors import ENVIRONMENT


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


def test_files_created_together_never_replace_one_that_exists(tmp_path: Path) -> None:
    new, existing = tmp_path / "my_search.py", tmp_path / "test_my_search.py"
    existing.write_bytes(b"the user's own tests")
    with pytest.raises(FileExistsError):
        create_all_atomic({new: b"system", existing: b"skeleton tests"})
    assert existing.read_bytes() == b"the user's own tests"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["test_my_search.py"]


def test_a_failure_while_creating_leaves_none_of_the_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def link_once(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
        if calls:
            raise OSError(28, "No space left on device")
        calls.append(str(target))
        os_link(source, target)

    os_link = os.link
    monkeypatch.setattr(os, "link", link_once)
    with pytest.raises(OSError, match="No space left"):
        create_all_atomic({tmp_path / "a.py": b"a", tmp_path / "b.py": b"b"})
    assert calls == [str(tmp_path / "a.py")] and list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    create_all_atomic({tmp_path / "a.py": b"a", tmp_path / "b.py": b"b"})
    assert sorted(p.read_bytes() for p in tmp_path.iterdir()) == [b"a", b"b"]


def test_a_full_disk_names_the_file_it_could_not_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernel reports a full disk on a handle, without a file name: the error names the file being written, and
    the command's message says which one (the file kept as it was, no temporary left)."""
    full = Path("/dev/full")  # every write to it fails as a full disk does
    with pytest.raises(OSError) as raised:
        write_file(full, b"data")
    assert raised.value.errno == errno.ENOSPC and raised.value.filename == str(full)
    message, code = describe(raised.value)
    assert message.startswith("/dev/full: No space left on device; the disk is full") and code == ENVIRONMENT

    target = tmp_path / "report.html"
    target.write_bytes(b"earlier report")

    def disk_full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(os, "fsync", disk_full)  # a delayed allocation failing when the data reaches the disk
    writes: list[Callable[[], None]] = [lambda: write_bytes_atomic(target, b"new"),
                                        lambda: create_all_atomic({tmp_path / "new": b"n"})]
    for write in writes:
        with pytest.raises(OSError) as raised:
            write()
        assert raised.value.filename in (str(target), str(tmp_path / "new")), raised.value
        assert str(raised.value.filename) in describe(raised.value)[0]
    assert target.read_bytes() == b"earlier report" and sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]
