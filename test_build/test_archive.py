"""SafeArchive refuses every hostile archive with a message naming the member and the attack."""

import dataclasses
import hashlib
import re
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

import harness.corpus.dataset
from fixtures import hostile
from fixtures.archives import tiny_archive, tiny_contract, tiny_members
from harness.corpus.archive import SafeArchive
from harness.corpus.dataset import load_dataset
from harness.errors import ArchiveSafetyError

Builder = Callable[[Path], Path]
LIMITS = tiny_contract().limits

# Refused by the constructor, from the member table alone: (id, builder, substrings of the message).
ON_OPEN: list[tuple[str, Builder, list[str]]] = [
    ("zip-slip", hostile.zip_slip, [repr(hostile.SLIP_NAME), "'..' component", "path traversal"]),
    ("absolute-path", hostile.absolute_path, [repr(hostile.ABSOLUTE_NAME), "absolute path"]),
    ("windows-drive", hostile.windows_drive_path, [repr(hostile.DRIVE_NAME), "absolute path"]),
    ("backslash", hostile.backslash_name, [repr(hostile.BACKSLASH_NAME), "backslash"]),
    ("symlink", hostile.symlink_member, [repr(hostile.SYMLINK_NAME), "symbolic link"]),
    ("duplicate-names", hostile.duplicate_names, [repr(hostile.CORPUS), "more than once"]),
    ("ratio-bomb", hostile.ratio_bomb,
     [repr(hostile.BOMB_NAME), "20971520", "ratio above the cap of 100", "zip bomb"]),
    ("overlap-quoted", hostile.overlapping_entries,
     [repr(hostile.CARRIER_NAME), repr(hostile.OVERLAP_NAME), "overlap"]),
    ("overlap-shared-header", hostile.shared_local_header,
     [repr(hostile.CORPUS), repr(hostile.OVERLAP_NAME), "overlap"]),
    ("missing-local-header", hostile.missing_local_header, [repr(hostile.OVERLAP_NAME), "no valid local header"]),
    ("too-many-members", hostile.too_many_members, ["25 members", "cap is 16"]),
    ("declared-total-over-cap", hostile.oversized_total, ["declare 1056245 uncompressed bytes", "cap is 1048576"]),
    ("encrypted", hostile.encrypted_flag, [repr(hostile.ENCRYPTED_NAME), "encrypted"]),
    ("bzip2", hostile.unsupported_compression,
     [repr(hostile.BZIP2_NAME), "compression method 12", "only stored and deflate"]),
    ("not-a-zip", hostile.not_a_zip, ["hostile.zip is not a readable zip archive"]),
]

# Pass the table checks; the lie shows only when the member is decompressed.
ON_READ: list[tuple[str, Builder, list[str]]] = [
    ("under-declared-size", hostile.underdeclared_size, [repr(hostile.CORPUS), "decompresses past its declared"]),
    ("corrupted-crc", hostile.corrupted_crc, [repr(hostile.CORPUS), "damaged", "CRC"]),
]

def _message(builder: Builder, tmp_path: Path) -> str:
    path = builder(tmp_path / "hostile.zip")
    with pytest.raises(ArchiveSafetyError) as caught:
        SafeArchive(path, LIMITS)
    return str(caught.value)


def test_tiny_archive_passes_and_reads_back(tmp_path: Path) -> None:
    members = tiny_members()
    with SafeArchive(tiny_archive(tmp_path / "tiny.zip"), LIMITS) as archive:
        assert sorted(archive.file_names) == sorted(members)
        for name, data in members.items():
            member = archive.read(name)
            assert member.name == name
            assert member.data == data
            assert member.bytes == len(data)
            assert member.sha256 == "sha256:" + hashlib.sha256(data).hexdigest()
            assert member.sha256 == tiny_contract().pinned_payload_sha256[name]


def test_missing_member_is_refused_listing_what_exists(tmp_path: Path) -> None:
    with (
        SafeArchive(tiny_archive(tmp_path / "tiny.zip"), LIMITS) as archive,
        pytest.raises(ArchiveSafetyError) as caught,
    ):
        archive.read("tiny/nope.jsonl")
    assert "'tiny/nope.jsonl'" in str(caught.value)
    assert repr(hostile.CORPUS) in str(caught.value)


@pytest.mark.parametrize(("builder", "expected"), [pytest.param(b, e, id=i) for i, b, e in ON_OPEN])
def test_hostile_archive_is_refused_on_open(builder: Builder, expected: list[str], tmp_path: Path) -> None:
    message = _message(builder, tmp_path)
    for part in expected:
        assert part in message, f"{part!r} not in {message!r}"


@pytest.mark.parametrize("builder", [pytest.param(b, id=i) for i, b, _ in ON_OPEN if b is not hostile.not_a_zip])
def test_plain_zipfile_accepts_the_hostile_table(builder: Builder, tmp_path: Path) -> None:
    """Control: each hostile archive opens in zipfile, so the refusal above is SafeArchive's own doing."""
    with zipfile.ZipFile(builder(tmp_path / "hostile.zip")) as archive:
        assert set(tiny_members()) <= set(archive.namelist())


def test_ratio_cap_is_what_stops_the_bomb(tmp_path: Path) -> None:
    """With the ratio cap raised, the same bomb is stopped by the total-size cap instead."""
    path = hostile.ratio_bomb(tmp_path / "bomb.zip")
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(hostile.BOMB_NAME)
    assert info.file_size == 20 << 20
    assert info.compress_size * 100 < info.file_size
    relaxed = dataclasses.replace(LIMITS, max_compression_ratio=10_000)
    with pytest.raises(ArchiveSafetyError, match="uncompressed bytes; the cap is 1048576"):
        SafeArchive(path, relaxed)


@pytest.mark.parametrize(("builder", "expected"), [pytest.param(b, e, id=i) for i, b, e in ON_READ])
def test_lies_found_while_decompressing_are_refused_on_read(
    builder: Builder, expected: list[str], tmp_path: Path
) -> None:
    with SafeArchive(builder(tmp_path / "hostile.zip"), LIMITS) as archive:
        queries = tiny_members()["tiny/queries.jsonl"]
        assert archive.read("tiny/queries.jsonl").data == queries  # the other members are intact
        with pytest.raises(ArchiveSafetyError) as caught:
            archive.read(hostile.CORPUS)
    for part in expected:
        assert part in str(caught.value), f"{part!r} not in {caught.value}"


def test_damaged_deflate_stream_is_refused_on_read(tmp_path: Path) -> None:
    with (
        SafeArchive(hostile.corrupted_deflate_stream(tmp_path / "hostile.zip"), LIMITS) as archive,
        pytest.raises(ArchiveSafetyError, match=re.escape(repr(hostile.CORPUS))),
    ):
        archive.read(hostile.CORPUS)


def test_member_data_past_the_end_is_refused_on_read(tmp_path: Path) -> None:
    with (
        SafeArchive(hostile.member_past_end(tmp_path / "hostile.zip"), LIMITS) as archive,
        pytest.raises(ArchiveSafetyError, match=re.escape(repr(hostile.LAST_NAME))),
    ):
        archive.read(hostile.LAST_NAME)


def test_under_declared_size_with_matching_crc_is_refused_on_read(tmp_path: Path) -> None:
    with (
        SafeArchive(hostile.underdeclared_size_consistent_crc(tmp_path / "hostile.zip"), LIMITS) as archive,
        pytest.raises(ArchiveSafetyError, match=re.escape(repr(hostile.CORPUS))),
    ):
        member = archive.read(hostile.CORPUS)
        # Reached only while the bug stands: the member comes back cut to the declared 100 bytes.
        assert member.data == tiny_members()[hostile.CORPUS][:100]


@pytest.fixture
def parse_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record every call load_dataset makes into the BEIR parsers (they still run)."""
    calls: list[str] = []
    for name in ("parse_corpus", "parse_queries", "parse_qrels", "check_references"):
        real = getattr(harness.corpus.dataset, name)

        def spy(*args: object, _name: str = name, _real: Callable[..., object] = real) -> object:
            calls.append(_name)
            return _real(*args)

        monkeypatch.setattr(harness.corpus.dataset, name, spy)
    return calls


def test_load_dataset_parses_the_tiny_archive(tmp_path: Path, parse_calls: list[str]) -> None:
    """Control for the test below: the spy does see parsing when the archive is sound."""
    dataset = load_dataset(tiny_archive(tmp_path / "tiny.zip"), tiny_contract())
    assert len(dataset.documents) == 10
    assert parse_calls == ["parse_corpus", "parse_queries", "parse_qrels", "check_references"]


@pytest.mark.parametrize(
    "builder",
    [pytest.param(b, id=i) for i, b, _ in ON_OPEN + ON_READ]
    + [
        pytest.param(hostile.corrupted_deflate_stream, id="damaged-deflate"),
        pytest.param(hostile.member_past_end, id="data-past-end"),
        pytest.param(hostile.underdeclared_size_consistent_crc, id="under-declared-size-matching-crc"),
    ],
)
def test_load_dataset_refuses_a_hostile_archive_before_parsing(
    builder: Builder, tmp_path: Path, parse_calls: list[str]
) -> None:
    with pytest.raises(ArchiveSafetyError):
        load_dataset(builder(tmp_path / "hostile.zip"), tiny_contract())
    assert parse_calls == []
