"""The harness hashes its own and a system's source files once per process while each file stands still: the same
inode, size and times, last changed longer ago than a filesystem's grain of time. A rewrite after that shows in the
stat and is hashed again; a file changed within the grain is hashed every time."""

import os
from collections import Counter
from pathlib import Path

import pytest

from fixtures.hash_counts import counted_hashes, sha256_of
from harness import hashing
from harness.hashing import settled_sha256_file, sha256_file
from harness.source_digest import PACKAGE_ROOT, harness_digest, source_files


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    return counted_hashes(monkeypatch, hashing, "_SETTLED")


def test_a_settled_file_is_hashed_once_and_a_rewrite_is_seen(tmp_path: Path, hashed: Counter[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hashing, "SETTLED_NS", -10**12)  # this test's fresh files count as settled
    module = tmp_path / "helper.py"
    module.write_text("A = 1\n")
    assert [settled_sha256_file(module) for _ in range(3)] == [sha256_of(b"A = 1\n")] * 3
    assert hashed[str(module)] == 1
    module.write_text("A = 22\n")
    assert settled_sha256_file(module) == sha256_of(b"A = 22\n") and hashed[str(module)] == 2
    module.unlink()
    with pytest.raises(FileNotFoundError):
        settled_sha256_file(module)


def test_a_file_changed_within_the_grain_is_hashed_every_time(tmp_path: Path, hashed: Counter[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hashing, "SETTLED_NS", 60 * 10**9)  # a grain no pause of a loaded machine outlasts
    fresh = tmp_path / "fresh.py"
    fresh.write_text("B = 2\n")
    assert [settled_sha256_file(fresh) for _ in range(2)] == [sha256_of(b"B = 2\n")] * 2
    assert hashed[str(fresh)] == 2


def test_the_harness_digest_is_the_same_hashed_once_or_again(hashed: Counter[str]) -> None:
    """The harness's own digest from memory equals the digest of every file read afresh, and a file that stood
    still (all of a checkout but one just edited) was hashed once."""
    files = source_files()
    settled = {str(p) for p in files if hashing.settled(hashing._stat(str(p)))}
    first, again = harness_digest(), harness_digest()
    assert first == again and first["files"] == len(files) == len(hashed)
    assert {path for path in settled if hashed[path] != 1} == set()
    fresh = {p.relative_to(PACKAGE_ROOT.parent).as_posix(): sha256_file(p) for p in files}
    assert first["sha256"] == hashing.sha256_canonical(fresh)


def test_a_file_whose_modification_time_was_set_back_is_not_settled(tmp_path: Path, hashed: Counter[str]) -> None:
    """`touch -d` (os.utime) sets the modification time back at will, never the change time: a source file
    rewritten just now with an old modification time is hashed every time, under the real grain."""
    module = tmp_path / "helper.py"
    module.write_text("C = 3\n")
    os.utime(module, ns=(10**18, 10**18))  # 2001, long settled by its modification time alone
    assert not hashing.settled(hashing._stat(str(module)))
    assert [settled_sha256_file(module) for _ in range(2)] == [sha256_of(b"C = 3\n")] * 2
    assert hashed[str(module)] == 2


def test_a_digest_taken_inside_the_grain_is_not_kept_for_after_it(tmp_path: Path, hashed: Counter[str],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A file hashed while it could still be rewritten unseen is hashed again once the grain has passed."""
    monkeypatch.setattr(hashing, "SETTLED_NS", 60 * 10**9)
    module = tmp_path / "helper.py"
    module.write_text("D = 4\n")
    assert settled_sha256_file(module) == sha256_of(b"D = 4\n") and hashed[str(module)] == 1
    monkeypatch.setattr(hashing, "SETTLED_NS", -10**12)  # the grain has passed; the stat is the same
    assert settled_sha256_file(module) == sha256_of(b"D = 4\n") and hashed[str(module)] == 2
    assert settled_sha256_file(module) == sha256_of(b"D = 4\n") and hashed[str(module)] == 2  # now it is kept
