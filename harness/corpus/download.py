"""Streamed archive download: digests computed while streaming, renamed into place only when whole.

Bounded three ways: the body may not pass `max_bytes` (the pinned size, else the contract's archive cap;
the transfer stops at the first byte beyond it), no gap between bytes may pass the idle timeout, and the
whole transfer may not pass the deadline (SCIFACT_DOWNLOAD_DEADLINE or --download-deadline). Each
download that completes leaves a record of what it was held to beside the archive.
"""

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import requests
import urllib3

from harness.atomic import fsync_directory, write_bytes_atomic
from harness.corpus.deadline import DEADLINE_VARIABLE, DEFAULT_DEADLINE
from harness.corpus.partials import claimed_partial, remove_stale_partials
from harness.errors import DownloadError
from harness.hashing import prefixed
from harness.signals import sigterm_raises

ZIP_MAGIC = b"PK\x03\x04"
DEFAULT_TIMEOUT = (10.0, 60.0)  # (connect, read between bytes), seconds
DEFAULT_MAX_BYTES = 256 << 20


def record_path(dest: Path) -> Path:
    return dest.with_name(f".{dest.name}.download.json")


@dataclass(frozen=True)
class ArchiveFile:
    path: Path
    source_url: str | None
    sha256: str
    md5: str
    bytes: int


def digest_file(path: Path, source_url: str | None = None) -> ArchiveFile:
    sha, md5, size = hashlib.sha256(), hashlib.md5(usedforsecurity=False), 0
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            sha.update(chunk)
            md5.update(chunk)
            size += len(chunk)
    return ArchiveFile(path, source_url, prefixed(sha.hexdigest()), md5.hexdigest(), size)


def _check_response(response: requests.Response, url: str) -> None:
    if response.status_code != 200:
        raise DownloadError(
            f"GET {url} answered HTTP {response.status_code} {response.reason}; nothing was kept. "
            "Check the URL, or pass --archive with a local copy."
        )
    content_type = response.headers.get("Content-Type", "").lower()
    if "text/html" in content_type:
        raise DownloadError(
            f"GET {url} answered with an HTML page (Content-Type {content_type!r}), not a zip archive; "
            "nothing was kept. The host may be serving an error or login page."
        )


def _declared_length(response: requests.Response, url: str) -> int | None:
    """Content-Length as an int; a header repeated with one value (urllib3 joins them) is accepted."""
    header = response.headers.get("Content-Length")
    if header is None:
        return None
    values = {value.strip() for value in header.split(",")}
    if len(values) != 1 or not next(iter(values)).isdigit():
        raise DownloadError(f"GET {url} answered with a malformed Content-Length {header!r}; nothing was kept.")
    return int(values.pop())


def _stream_to(response: requests.Response, url: str, handle: BinaryIO, chunk_size: int, max_bytes: int,
               deadline: float) -> tuple[str, str, int]:
    """Write the body to `handle`; return (sha256 hex, md5 hex, bytes). The zip magic is checked on the
    first four bytes however the body is chunked. read1 returns what one read brings, so a trickling body
    meets the deadline check between reads instead of filling a whole chunk first."""
    sha, md5, size, head = hashlib.sha256(), hashlib.md5(usedforsecurity=False), 0, b""
    ends_at = time.monotonic() + deadline
    while chunk := response.raw.read1(chunk_size, decode_content=True):
        if len(head) < len(ZIP_MAGIC):
            head += chunk[: len(ZIP_MAGIC) - len(head)]
            if not ZIP_MAGIC.startswith(head):
                raise DownloadError(f"GET {url} returned data that is not a zip archive (it starts "
                                    f"{(head + chunk)[:16]!r}); nothing was kept.")
        if size + len(chunk) > max_bytes:
            raise DownloadError(f"GET {url}: the body runs past {max_bytes} bytes, more than the archive can be; "
                                f"stopped after {size} bytes and nothing was kept. Check the URL, or pass --archive.")
        handle.write(chunk)
        sha.update(chunk)
        md5.update(chunk)
        size += len(chunk)
        if time.monotonic() > ends_at:
            raise DownloadError(f"GET {url}: not complete after the {deadline:g} s deadline ({size} bytes so far); "
                                f"nothing was kept. On a slow link raise --download-deadline (or "
                                f"{DEADLINE_VARIABLE}), or pass --archive with a local copy.")
    handle.flush()
    os.fsync(handle.fileno())
    if head != ZIP_MAGIC:
        raise DownloadError(f"GET {url} returned {size} bytes, too few to be a zip archive; nothing was kept.")
    return sha.hexdigest(), md5.hexdigest(), size


def download_archive(
    url: str,
    dest: Path,
    *,
    expected_bytes: int | None = None,
    expected_md5: str | None = None,
    timeout: tuple[float, float] = DEFAULT_TIMEOUT,
    chunk_size: int = 1 << 16,
    max_bytes: int = DEFAULT_MAX_BYTES,
    deadline: float = DEFAULT_DEADLINE,
) -> ArchiveFile:
    """Download `url` to `dest`. `dest` appears only once the whole, verified file is on disk."""
    limit = expected_bytes if expected_bytes is not None else max_bytes
    dest.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_partials(dest)
    started = time.monotonic()
    try:
        with sigterm_raises(), claimed_partial(dest) as (partial, handle):
            # identity: the body on the wire is the archive itself, so Content-Length counts its bytes
            with requests.get(url, stream=True, timeout=timeout,
                              headers={"Accept-Encoding": "identity"}) as response:
                _check_response(response, url)
                declared = _declared_length(response, url)
                if declared is not None and declared > limit:
                    raise DownloadError(f"GET {url} announces {declared} bytes, more than the {limit} the archive "
                                        "can be; nothing was downloaded. Check the URL, or pass --archive.")
                sha_hex, md5_hex, size = _stream_to(response, url, handle, chunk_size, limit, deadline)
                received = response.raw.tell()
            if declared is not None and received != declared:
                raise DownloadError(f"GET {url}: received {received} bytes of the {declared} announced; "
                                    "nothing was kept.")
            _verify_pins(url, size, md5_hex, expected_bytes, expected_md5)
            os.replace(partial, dest)
            fsync_directory(dest.parent)
    except (requests.RequestException, urllib3.exceptions.HTTPError) as exc:
        raise DownloadError(
            f"GET {url} failed: {exc}. Nothing was kept; rerun to start the download again, or pass "
            f"--archive with a local copy of {url.rsplit('/', 1)[-1]}."
        ) from exc
    archive = ArchiveFile(dest, url, prefixed(sha_hex), md5_hex, size)
    _write_record(archive, timeout, limit, deadline, time.monotonic() - started)
    return archive


def _write_record(archive: ArchiveFile, timeout: tuple[float, float], max_bytes: int, deadline: float,
                  seconds: float) -> None:
    record = {"url": archive.source_url, "file": archive.path.name, "sha256": archive.sha256, "md5": archive.md5,
              "bytes": archive.bytes, "seconds": round(seconds, 3), "deadline_seconds": deadline,
              "idle_timeout_seconds": timeout[1], "connect_timeout_seconds": timeout[0], "max_bytes": max_bytes,
              "finished_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    write_bytes_atomic(record_path(archive.path), json.dumps(record, indent=1).encode("utf-8") + b"\n")


def _verify_pins(
    url: str, size: int, md5_hex: str, expected_bytes: int | None, expected_md5: str | None
) -> None:
    if expected_bytes is not None and size != expected_bytes:
        raise DownloadError(f"GET {url}: archive has {size} bytes, the pinned archive has {expected_bytes}.")
    if expected_md5 is not None and md5_hex != expected_md5:
        raise DownloadError(f"GET {url}: archive md5 is {md5_hex}, the pinned archive has {expected_md5}.")


def fetch_or_reuse(
    url: str, dest: Path, *, expected_bytes: int | None, expected_md5: str | None,
    max_bytes: int = DEFAULT_MAX_BYTES, deadline: float = DEFAULT_DEADLINE,
) -> ArchiveFile:
    """Reuse a previous download only when it matches the pinned size and md5; else download again."""
    if dest.is_file() and expected_bytes is not None and expected_md5 is not None:
        existing = digest_file(dest, url)
        if existing.bytes == expected_bytes and existing.md5 == expected_md5:
            return existing
    return download_archive(url, dest, expected_bytes=expected_bytes, expected_md5=expected_md5,
                            max_bytes=max_bytes, deadline=deadline)
