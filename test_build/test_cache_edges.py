"""The embedding cache's edge cases end in a named error, never a traceback: sealed records with unusable fields,
a NUL-filled final line (cut, like a torn one), an unwritable cache, a cache path of the wrong kind, and a lock held
by another process (waited for aloud, then given up on)."""

import base64
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fixtures.archives import tiny_archive
from fixtures.cli import assert_clean_failure, run_tiny_cli
from fixtures.ollama_server import FakeOllama
from fixtures.unwritable import unwritable
from harness.embedding.cache import CachedVector, EmbeddingCache
from harness.errors import CacheAccessError, CacheCorruptionError, LockTimeout
from harness.hashing import canonical_json, sha256_bytes

IDENTITY = {"backend": "test", "model": "m", "weights_sha256": "sha256:" + "1" * 64}
HOLD_LOCK = """
import fcntl, sys, time
handle = open(sys.argv[1], "ab")
fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(60)
"""


def _filled(directory: Path, count: int) -> EmbeddingCache:
    with EmbeddingCache(directory, IDENTITY) as cache:
        for i in range(count):
            values = np.random.default_rng(i).normal(size=8)
            cache.put(f"prompt {i}", CachedVector((values / np.linalg.norm(values)).astype("<f4"), None, False))
    return cache


def _reseal(path: Path, index: int, edit: Callable[[dict[str, Any]], None]) -> None:
    """Edit record `index` and give it a valid checksum again, as a careless tool (or a forger) would."""
    lines = path.read_bytes().splitlines(keepends=True)
    record = json.loads(lines[index])
    record.pop("checksum")
    edit(record)
    record["checksum"] = sha256_bytes(canonical_json(record))
    lines[index] = canonical_json(record) + b"\n"
    path.write_bytes(b"".join(lines))


@pytest.mark.parametrize(("edit", "problem"), [
    (lambda r: r.update(vector="not*base64!"), "holds a vector that is not valid base64"),
    (lambda r: r.update(vector=base64.b64encode(b"\0" * 31).decode()), "holds a vector of 31 bytes, not the 8"),
    (lambda r: r.update(dims="8"), "has fields of the wrong type"),
    (lambda r: r.update(vector=base64.b64encode(np.full(8, np.nan, "<f4").tobytes()).decode()),
     "holds a vector with non-finite values"),
], ids=["bad-base64", "odd-byte-size", "dims-a-string", "nan"])
def test_a_sealed_record_with_unusable_fields_is_named(tmp_path: Path, edit: Callable[[dict[str, Any]], None],
                                                       problem: str) -> None:
    cache = _filled(tmp_path, 3)
    _reseal(cache.path, 1, edit)
    with pytest.raises(CacheCorruptionError, match=f"line 2 of 3: {problem}") as caught:
        EmbeddingCache(tmp_path, IDENTITY).open()
    assert f"sed -i '2d' {cache.path}" in str(caught.value)


def test_a_nul_filled_final_line_is_cut_like_a_torn_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What a crash leaves when the file's length reached the disk before its data: a line of NULs (here with the
    newline that the next block happened to hold). Before: several KB of \\x00 in the message and the advice to
    embed everything again."""
    cache = _filled(tmp_path, 3)
    good = cache.path.read_bytes()
    cache.path.write_bytes(good + b"\0" * 4096 + b"\n")
    with EmbeddingCache(tmp_path, IDENTITY) as reopened:
        assert reopened.report.records == 3 and reopened.report.torn_tail_bytes == 4097
    assert cache.path.read_bytes() == good


def test_a_damaged_line_is_described_briefly(tmp_path: Path) -> None:
    cache = _filled(tmp_path, 3)
    lines = cache.path.read_bytes().splitlines(keepends=True)
    cache.path.write_bytes(lines[0] + b"\0" * 4096 + b"garbage\n" + lines[2])
    with pytest.raises(CacheCorruptionError) as caught:
        EmbeddingCache(tmp_path, IDENTITY).open()
    message = str(caught.value)
    assert "line 2 of 3: is not a cache record (4103 bytes starting" in message
    assert len(message) < 600 and message.count("\\x00") <= 24


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with FakeOllama() as server:
        yield server


def _build_argv(tmp_path: Path, work: Path) -> list[str]:
    return ["build", "--out", str(tmp_path / "fixture.json"), "--work-dir", str(work), "--archive",
            str(tiny_archive(tmp_path / "tiny.zip")), "--embedder", "ollama", "--no-progress"]


def test_a_read_only_cache_ends_in_one_line(tmp_path: Path, ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OLLAMA_HOST", ollama.url)
    argv = _build_argv(tmp_path, tmp_path / "work")
    assert run_tiny_cli(argv, capsys).code == 0
    [cache_file] = (tmp_path / "work" / "embedding-cache").glob("*.jsonl")
    with unwritable(cache_file):
        outcome = run_tiny_cli(argv, capsys)
    assert_clean_failure(outcome.code, outcome.err, 4)
    assert f"embedding cache {cache_file}" in outcome.err and "--work-dir" in outcome.err


@pytest.mark.parametrize("wrong", ["cache-file-is-a-directory", "cache-directory-is-a-file"])
def test_a_cache_path_of_the_wrong_kind_ends_in_one_line(tmp_path: Path, ollama: FakeOllama, wrong: str,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OLLAMA_HOST", ollama.url)
    work = tmp_path / "work"
    if wrong == "cache-directory-is-a-file":
        work.mkdir()
        (work / "embedding-cache").write_text("not a directory\n")
    outcome = run_tiny_cli(_build_argv(tmp_path, work), capsys)
    if wrong == "cache-file-is-a-directory":  # the build's own identity names the file: make it a directory first
        [cache_file] = (work / "embedding-cache").glob("*.jsonl")
        cache_file.unlink()
        cache_file.mkdir()
        outcome = run_tiny_cli(_build_argv(tmp_path, work), capsys)
    assert_clean_failure(outcome.code, outcome.err, 2)
    assert "embedding cache" in outcome.err and "move it aside" in outcome.err


def test_an_unwritable_cache_directory_is_an_access_error(tmp_path: Path) -> None:
    (tmp_path / "cache").mkdir()
    with unwritable(tmp_path / "cache"), pytest.raises(CacheAccessError, match="another --work-dir"):
        EmbeddingCache(tmp_path / "cache", IDENTITY).open()


def test_a_held_lock_is_waited_for_aloud_then_given_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Before: a silent wait (26 s seen)."""
    cache = _filled(tmp_path, 1)
    lock = cache.path.parent / (cache.path.name + ".lock")
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(lock)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        monkeypatch.setenv("SCIFACT_LOCK_TIMEOUT", "1.5")
        with pytest.raises(LockTimeout, match=rf"waiting for the embedding cache {cache.path}.*holds the lock"):
            EmbeddingCache(tmp_path, IDENTITY).open()
    finally:
        holder.kill()
        holder.wait()
    err = capsys.readouterr().err
    assert err.count("waiting for the embedding cache") == 1 and str(lock) in err
    with EmbeddingCache(tmp_path, IDENTITY) as reopened:  # the holder is gone, and so is its lock
        assert reopened.report.records == 1
