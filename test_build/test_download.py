"""download_archive / fetch_or_reuse / obtain_archive against a loopback server that misbehaves on cue."""

import dataclasses
import hashlib
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixtures.archives import tiny_archive, tiny_contract
from fixtures.http_server import LoopbackServer, Route
from harness.corpus.contract import Contract
from harness.corpus.dataset import load_dataset
from harness.corpus.download import ArchiveFile, download_archive, fetch_or_reuse, record_path
from harness.corpus.obtain import obtain_archive
from harness.corpus.partials import remove_stale_partials
from harness.errors import DownloadError
from harness.fixture.build import build_fixture

ARCHIVE = "/scifact.zip"
SHORT_TIMEOUT = (2.0, 0.3)  # connect, read: the stalling routes below wait far longer


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The bytes the healthy route serves: the tiny archive."""
    return tiny_archive(tmp_path_factory.mktemp("served") / "tiny.zip").read_bytes()


@pytest.fixture
def server(served: bytes) -> Iterator[LoopbackServer]:
    routes = {
        ARCHIVE: Route(body=served),
        "/chunked.zip": Route(body=served, chunked=True, chunk_size=512),
        "/slow.zip": Route(body=served, chunk_size=512, chunk_delay=0.02),
        "/missing.zip": Route.not_found(),
        "/login": Route.html_error_page(),
        "/cut.zip": Route.cut(served, after=len(served) // 2),
        "/stall.zip": Route(body=served, stall=30.0),
        "/stall-midway.zip": Route(body=served, chunk_size=256, chunk_delay=30.0),
        "/not-a-zip.bin": Route(body=b"this is not a zip archive\n" * 4, content_type="application/octet-stream"),
        "/empty.zip": Route(body=b""),
    }
    with LoopbackServer(routes) as running:
        yield running


@pytest.fixture
def dest(tmp_path: Path) -> Path:
    return tmp_path / "download" / "scifact.zip"


def leftovers(dest: Path) -> list[str]:
    """Everything in the download directory other than the finished archive."""
    if not dest.parent.exists():
        return []
    return sorted(path.name for path in dest.parent.iterdir() if path not in (dest, record_path(dest)))


def assert_nothing_kept(dest: Path) -> None:
    assert not dest.exists()
    assert leftovers(dest) == []


def expected_digests(data: bytes) -> tuple[str, str, int]:
    return "sha256:" + hashlib.sha256(data).hexdigest(), hashlib.md5(data).hexdigest(), len(data)


@pytest.mark.parametrize("path", [ARCHIVE, "/chunked.zip", "/slow.zip"])
def test_download_succeeds_with_digests_of_the_served_bytes(
    server: LoopbackServer, served: bytes, dest: Path, path: str
) -> None:
    result = download_archive(server.url(path), dest)
    assert (result.sha256, result.md5, result.bytes) == expected_digests(served)
    assert result.path == dest
    assert result.source_url == server.url(path)
    assert dest.read_bytes() == served
    assert leftovers(dest) == []
    assert server.paths() == [path]


def test_404_is_refused_and_nothing_is_kept(server: LoopbackServer, dest: Path) -> None:
    with pytest.raises(DownloadError, match="HTTP 404"):
        download_archive(server.url("/missing.zip"), dest)
    assert_nothing_kept(dest)


def test_html_error_page_is_refused_and_nothing_is_kept(server: LoopbackServer, dest: Path) -> None:
    with pytest.raises(DownloadError, match="HTML page") as caught:
        download_archive(server.url("/login"), dest)
    assert "text/html" in str(caught.value)
    assert_nothing_kept(dest)


def test_connection_cut_mid_transfer_is_refused_then_a_rerun_starts_cleanly(
    server: LoopbackServer, served: bytes, dest: Path
) -> None:
    with pytest.raises(DownloadError, match="Nothing was kept"):
        download_archive(server.url("/cut.zip"), dest)
    assert_nothing_kept(dest)
    result = download_archive(server.url(ARCHIVE), dest)
    assert dest.read_bytes() == served
    assert result.md5 == hashlib.md5(served).hexdigest()
    assert leftovers(dest) == []
    assert server.paths() == ["/cut.zip", ARCHIVE]


def test_wrong_md5_pin_is_refused_naming_expected_and_found(
    server: LoopbackServer, served: bytes, dest: Path
) -> None:
    wrong = "0" * 32
    with pytest.raises(DownloadError) as caught:
        download_archive(server.url(ARCHIVE), dest, expected_bytes=len(served), expected_md5=wrong)
    assert wrong in str(caught.value)
    assert hashlib.md5(served).hexdigest() in str(caught.value)
    assert_nothing_kept(dest)


def test_wrong_size_pin_is_refused_naming_expected_and_found(
    server: LoopbackServer, served: bytes, dest: Path
) -> None:
    with pytest.raises(DownloadError) as caught:
        download_archive(server.url(ARCHIVE), dest, expected_bytes=len(served) + 1,
                         expected_md5=hashlib.md5(served).hexdigest())
    assert f"has {len(served)} bytes" in str(caught.value)
    assert f"pinned archive has {len(served) + 1}" in str(caught.value)
    assert_nothing_kept(dest)


def test_non_zip_body_served_as_octet_stream_is_refused(server: LoopbackServer, dest: Path) -> None:
    with pytest.raises(DownloadError, match="not a zip archive"):
        download_archive(server.url("/not-a-zip.bin"), dest)
    assert_nothing_kept(dest)


def test_empty_body_is_refused(server: LoopbackServer, dest: Path) -> None:
    with pytest.raises(DownloadError, match="too few to be a zip archive"):
        download_archive(server.url("/empty.zip"), dest)
    assert_nothing_kept(dest)


@pytest.mark.parametrize(("path", "succeeds"), [(ARCHIVE, True), ("/missing.zip", False)])
def test_stale_partial_of_a_killed_run_is_removed(
    server: LoopbackServer, dest: Path, path: str, succeeds: bool
) -> None:
    dest.parent.mkdir(parents=True)
    stale = dest.parent / ".scifact.zip.part-99999"
    stale.write_bytes(b"PK\x03\x04 half of an old download")
    unrelated = dest.parent / "notes.txt"
    unrelated.write_text("not a partial download\n")
    if succeeds:
        download_archive(server.url(path), dest)
    else:
        with pytest.raises(DownloadError):
            download_archive(server.url(path), dest)
    assert not stale.exists()
    assert unrelated.exists()
    assert dest.exists() is succeeds


def test_remove_stale_partials_reports_what_it_removed(tmp_path: Path) -> None:
    dest = tmp_path / "scifact.zip"
    for pid in (7, 99999):
        (tmp_path / f".scifact.zip.part-{pid}").write_bytes(b"x")
    (tmp_path / ".other.zip.part-7").write_bytes(b"x")
    removed = remove_stale_partials(dest)
    assert [path.name for path in removed] == [".scifact.zip.part-7", ".scifact.zip.part-99999"]
    assert sorted(path.name for path in tmp_path.iterdir()) == [".other.zip.part-7"]


@pytest.mark.parametrize("path", ["/stall.zip", "/stall-midway.zip"])
def test_server_silent_past_the_read_timeout_is_refused(server: LoopbackServer, dest: Path, path: str) -> None:
    started = time.perf_counter()
    with pytest.raises(DownloadError, match="timed out"):
        download_archive(server.url(path), dest, timeout=SHORT_TIMEOUT)
    assert time.perf_counter() - started < 5.0
    assert server.paths() == [path]  # the request arrived: the failure is the silence, not the connection
    assert_nothing_kept(dest)


def test_fetch_or_reuse_reuses_a_matching_file_without_a_request(
    server: LoopbackServer, served: bytes, dest: Path
) -> None:
    dest.parent.mkdir(parents=True)
    dest.write_bytes(served)
    sha256, md5, size = expected_digests(served)
    result = fetch_or_reuse(server.url(ARCHIVE), dest, expected_bytes=size, expected_md5=md5)
    assert (result.sha256, result.md5, result.bytes, result.path) == (sha256, md5, size, dest)
    assert server.requests == []


@pytest.mark.parametrize(
    "pins",
    [
        pytest.param("same-size-other-bytes", id="md5-mismatch"),
        pytest.param("shorter", id="size-mismatch"),
        pytest.param("unpinned", id="no-pins-always-downloads"),
    ],
)
def test_fetch_or_reuse_downloads_again_when_the_file_does_not_match(
    server: LoopbackServer, served: bytes, dest: Path, pins: str
) -> None:
    dest.parent.mkdir(parents=True)
    if pins == "same-size-other-bytes":
        dest.write_bytes(served[:-1] + bytes([served[-1] ^ 0xFF]))
    elif pins == "shorter":
        dest.write_bytes(served[:-10])
    else:
        dest.write_bytes(served)
    _, md5, size = expected_digests(served)
    if pins == "unpinned":
        result = fetch_or_reuse(server.url(ARCHIVE), dest, expected_bytes=None, expected_md5=None)
    else:
        result = fetch_or_reuse(server.url(ARCHIVE), dest, expected_bytes=size, expected_md5=md5)
    assert server.paths() == [ARCHIVE]
    assert dest.read_bytes() == served
    assert (result.md5, result.bytes) == (md5, size)
    assert leftovers(dest) == []


def loopback_contract(server: LoopbackServer, served: bytes, path: str = ARCHIVE) -> Contract:
    return dataclasses.replace(
        tiny_contract(), source_url=server.url(path),
        source_archive_bytes=len(served), source_archive_md5=hashlib.md5(served).hexdigest(),
    )


def test_obtain_archive_downloads_the_contract_url_and_reuses_it(
    server: LoopbackServer, served: bytes, tmp_path: Path
) -> None:
    contract = loopback_contract(server, served)
    first = obtain_archive(contract, tmp_path, None, None)
    sha256, md5, size = expected_digests(served)
    assert first == ArchiveFile(tmp_path / "download" / "scifact.zip", server.url(ARCHIVE), sha256, md5, size)
    dataset = load_dataset(first.path, contract)
    assert (len(dataset.documents), len(dataset.queries), dataset.qrel_pairs) == (10, 6, 8)
    assert obtain_archive(contract, tmp_path, None, None) == first
    assert server.paths() == [ARCHIVE]  # the second call reused the pinned download


def test_obtain_archive_refuses_a_download_that_misses_the_contract_pins(
    server: LoopbackServer, served: bytes, tmp_path: Path
) -> None:
    contract = dataclasses.replace(loopback_contract(server, served), source_archive_md5="f" * 32)
    with pytest.raises(DownloadError, match="f" * 32):
        obtain_archive(contract, tmp_path, None, None)
    assert_nothing_kept(tmp_path / "download" / "scifact.zip")


def test_obtain_archive_applies_no_pins_to_an_override_url(
    server: LoopbackServer, served: bytes, tmp_path: Path
) -> None:
    """The pins describe the contract's own URL; another URL is downloaded unpinned (and recorded as such)."""
    contract = dataclasses.replace(loopback_contract(server, served), source_archive_md5="f" * 32)
    result = obtain_archive(contract, tmp_path, None, server.url("/chunked.zip"))
    assert result.source_url == server.url("/chunked.zip")
    assert result.md5 == hashlib.md5(served).hexdigest()


@pytest.mark.real_model
def test_build_fixture_records_the_download_source(
    server: LoopbackServer, served: bytes, tmp_path: Path
) -> None:
    from harness.embedding.embedders.local import LocalEmbedder

    contract = loopback_contract(server, served)
    out = tmp_path / "fixture.json"
    report = build_fixture(contract, out=out, work_dir=tmp_path / "work", embedder=LocalEmbedder(),
                           progress=False)
    assert (report.documents, report.queries, report.qrel_pairs) == (10, 6, 8)
    source = json.loads(out.read_text(encoding="utf-8"))["source"]
    sha256, md5, size = expected_digests(served)
    assert source["kind"] == "download"
    assert source["url"] == server.url(ARCHIVE)
    assert (source["archive_sha256"], source["archive_md5"], source["archive_bytes"]) == (sha256, md5, size)
    assert source["payload_pinned"] is True
    assert server.paths() == [ARCHIVE]


# Bodies that are not a zip, however they are chunked, and header oddities urllib3 lets through.
def test_non_zip_body_in_small_http_chunks_is_refused(server: LoopbackServer, dest: Path) -> None:
    server.set_route("/login.bin", Route(body=b"Please sign in to download this file.\n", chunked=True,
                                          chunk_size=1, content_type="application/octet-stream"))
    with pytest.raises(DownloadError, match="not a zip archive"):
        download_archive(server.url("/login.bin"), dest)


def test_body_shorter_than_the_zip_magic_is_refused(server: LoopbackServer, dest: Path) -> None:
    server.set_route("/pk.zip", Route(body=b"PK", content_type="application/octet-stream"))
    with pytest.raises(DownloadError):
        download_archive(server.url("/pk.zip"), dest)


def test_repeated_content_length_header_does_not_crash(
    server: LoopbackServer, served: bytes, dest: Path
) -> None:
    server.set_route("/twice.zip", Route(body=served, headers=(("Content-Length", str(len(served))),)))
    assert download_archive(server.url("/twice.zip"), dest).bytes == len(served)
