"""The validator hashes a file once per process while the file stands still: the same inode, size and times, last
changed longer ago than a filesystem's grain of time. Any rewrite after that shows in the stat and is hashed again;
a file changed within the grain is hashed every time."""

import os
from collections import Counter
from pathlib import Path

import pytest

from fixtures.hash_counts import counted_hashes, sha256_of
from harness.validator.core import settled
from harness.validator.core.reading import stat_of
from harness.validator.core.settled import settled_digest


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    return counted_hashes(monkeypatch, settled, "_KNOWN")


def test_a_settled_file_is_hashed_once_and_a_rewrite_is_seen(tmp_path: Path, hashed: Counter[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settled, "SETTLED_NS", -10**12)  # this test's fresh files count as settled
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"weights")
    assert [settled_digest(weights) for _ in range(3)] == [sha256_of(b"weights")] * 3
    assert hashed[str(weights)] == 1
    weights.write_bytes(b"forged weights")
    assert settled_digest(weights) == sha256_of(b"forged weights") and hashed[str(weights)] == 2
    weights.unlink()
    with pytest.raises(FileNotFoundError):
        settled_digest(weights)


def test_a_file_changed_within_the_grain_is_hashed_every_time(tmp_path: Path, hashed: Counter[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Written just now, it could be rewritten at the same size and keep its stat: nothing is taken on trust."""
    monkeypatch.setattr(settled, "SETTLED_NS", 60 * 10**9)  # a grain no pause of a loaded machine outlasts
    fresh = tmp_path / "fresh.bin"
    fresh.write_bytes(b"now")
    assert not settled.settled(stat_of(str(fresh)))
    assert [settled_digest(fresh) for _ in range(2)] == [sha256_of(b"now")] * 2
    assert hashed[str(fresh)] == 2


def test_the_packaged_models_files_are_settled() -> None:
    """The case it is for: the model's files were installed long before any validation."""
    from harness.validator.embedding.embedders import model_directory

    weights = model_directory() / "model.safetensors"
    assert settled.settled(stat_of(str(weights))), stat_of(str(weights))


def test_a_file_whose_modification_time_was_set_back_is_not_settled(tmp_path: Path, hashed: Counter[str]) -> None:
    """`touch -d` (os.utime) sets the modification time back at will, never the change time: a file rewritten just
    now with an old modification time is hashed every time, under the real grain."""
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"weights")
    os.utime(weights, ns=(10**18, 10**18))  # 2001, long settled by its modification time alone
    assert not settled.settled(stat_of(str(weights))), stat_of(str(weights))
    assert [settled_digest(weights) for _ in range(2)] == [sha256_of(b"weights")] * 2
    assert hashed[str(weights)] == 2


def test_a_digest_taken_inside_the_grain_is_not_kept_for_after_it(tmp_path: Path, hashed: Counter[str],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A file hashed while it could still be rewritten unseen is hashed again once the grain has passed: the digest
    taken inside it is never the one reused."""
    monkeypatch.setattr(settled, "SETTLED_NS", 60 * 10**9)
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"weights")
    assert settled_digest(weights) == sha256_of(b"weights") and hashed[str(weights)] == 1
    monkeypatch.setattr(settled, "SETTLED_NS", -10**12)  # the grain has passed; the stat is the same
    assert settled_digest(weights) == sha256_of(b"weights") and hashed[str(weights)] == 2
    assert settled_digest(weights) == sha256_of(b"weights") and hashed[str(weights)] == 2  # now it is kept


def test_settled_means_more_than_the_grain_ago(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A change exactly one grain ago is not yet settled; a nanosecond later it is."""
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"weights")
    seen = stat_of(str(weights))
    assert seen is not None
    monkeypatch.setattr("time.time_ns", lambda: seen[3] + settled.SETTLED_NS)  # the clock the rule reads
    assert not settled.settled(seen)
    monkeypatch.setattr("time.time_ns", lambda: seen[3] + settled.SETTLED_NS + 1)
    assert settled.settled(seen)
