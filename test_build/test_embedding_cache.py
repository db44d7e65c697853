"""The append-only embedding cache: durable records, torn-tail repair, loud mid-file corruption."""

import fcntl
import json
from pathlib import Path

import numpy as np
import pytest

from harness.embedding.cache import CachedVector, EmbeddingCache
from harness.errors import CacheCorruptionError

IDENTITY = {"backend": "test", "model": "m", "weights_sha256": "sha256:" + "1" * 64}


def _vector(seed: int) -> CachedVector:
    values = np.random.default_rng(seed).normal(size=8)
    return CachedVector((values / np.linalg.norm(values)).astype("<f4"), None, False)


def _filled(directory: Path, count: int) -> EmbeddingCache:
    with EmbeddingCache(directory, IDENTITY) as cache:
        for i in range(count):
            cache.put(f"prompt {i}", _vector(i))
    return cache


def test_records_survive_reopen_bit_for_bit(tmp_path: Path) -> None:
    cache = _filled(tmp_path, 3)
    assert len(cache.path.read_bytes().splitlines()) == 3
    with EmbeddingCache(tmp_path, IDENTITY) as reopened:
        assert reopened.report.records == 3 and reopened.report.torn_tail_bytes == 0
        for i in range(3):
            found = reopened.get(f"prompt {i}")
            assert found is not None and found.vector.tobytes() == _vector(i).vector.tobytes()
        assert reopened.get("prompt 3") is None
    assert json.loads(cache.identity_path.read_text()) == IDENTITY


def test_putting_a_known_prompt_writes_nothing(tmp_path: Path) -> None:
    cache = _filled(tmp_path, 2)
    with EmbeddingCache(tmp_path, IDENTITY) as reopened:
        reopened.put("prompt 0", _vector(99))
    assert len(cache.path.read_bytes().splitlines()) == 2


def test_torn_tail_is_cut_and_reported(tmp_path: Path) -> None:
    cache = _filled(tmp_path, 3)
    good = cache.path.read_bytes()
    half = good.splitlines(keepends=True)[1][:57]
    cache.path.write_bytes(good + half)
    with EmbeddingCache(tmp_path, IDENTITY) as reopened:
        assert reopened.report.torn_tail_bytes == len(half)
        assert reopened.report.records == 3
    assert cache.path.read_bytes() == good


def test_a_file_that_is_only_a_torn_line_starts_empty(tmp_path: Path) -> None:
    cache = _filled(tmp_path, 1)
    cache.path.write_bytes(cache.path.read_bytes()[:40])
    with EmbeddingCache(tmp_path, IDENTITY) as reopened:
        assert reopened.report.records == 0 and reopened.report.torn_tail_bytes == 40
    assert cache.path.read_bytes() == b""


def _rewrite_line(path: Path, index: int, edit: object) -> None:
    lines = path.read_bytes().splitlines(keepends=True)
    lines[index] = edit(lines[index])  # type: ignore[operator]
    path.write_bytes(b"".join(lines))


@pytest.mark.parametrize("index", [1, 2], ids=["middle", "last-complete-line"])
def test_a_damaged_complete_record_fails_loudly(tmp_path: Path, index: int) -> None:
    cache = _filled(tmp_path, 3)
    before = cache.path.read_bytes()

    def flip(line: bytes) -> bytes:
        record = json.loads(line)
        record["vector"] = ("A" if record["vector"][0] != "A" else "B") + record["vector"][1:]
        return json.dumps(record).encode() + b"\n"

    _rewrite_line(cache.path, index, flip)
    damaged = cache.path.read_bytes()
    with pytest.raises(CacheCorruptionError, match=f"line {index + 1} of 3: fails its checksum"):
        EmbeddingCache(tmp_path, IDENTITY).open()
    assert cache.path.read_bytes() == damaged != before  # nothing was "repaired" away


def test_garbage_line_in_the_middle(tmp_path: Path) -> None:
    cache = _filled(tmp_path, 3)
    _rewrite_line(cache.path, 1, lambda line: b"\x00\x00garbage\n")
    with pytest.raises(CacheCorruptionError, match="line 2 of 3: is not a cache record"):
        EmbeddingCache(tmp_path, IDENTITY).open()


def test_duplicate_record_is_corruption(tmp_path: Path) -> None:
    cache = _filled(tmp_path, 2)
    first = cache.path.read_bytes().splitlines(keepends=True)[0]
    with cache.path.open("ab") as handle:
        handle.write(first)
    with pytest.raises(CacheCorruptionError, match="line 3 of 3: repeats the prompt"):
        EmbeddingCache(tmp_path, IDENTITY).open()


def test_records_of_another_model_are_refused(tmp_path: Path) -> None:
    cache = _filled(tmp_path, 1)
    other = EmbeddingCache(tmp_path, {**IDENTITY, "model": "other"})
    other.path.write_bytes(cache.path.read_bytes())
    with pytest.raises(CacheCorruptionError, match="another record version or model"):
        other.open()


def test_different_identities_use_different_files(tmp_path: Path) -> None:
    assert EmbeddingCache(tmp_path, IDENTITY).path != EmbeddingCache(tmp_path, {**IDENTITY, "model": "x"}).path


def test_an_open_cache_holds_an_exclusive_lock(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path, IDENTITY)
    lock_path = cache.path.parent / (cache.path.name + ".lock")
    with cache, lock_path.open("ab") as f, pytest.raises(BlockingIOError):
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    with lock_path.open("ab") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)  # released on close
