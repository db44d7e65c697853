"""Streamed archive download: digests computed while streaming, renamed into place only when whole."""

import contextlib
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import requests

from .atomic import fsync_directory
from .errors import DownloadError
from .hashing import prefixed

ZIP_MAGIC = b"PK\x03\x04"
DEFAULT_TIMEOUT = (10.0, 60.0)  # (connect, read between bytes), seconds


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


def _partial_name(dest: Path) -> Path:
    return dest.with_name(f".{dest.name}.part-{os.getpid()}")


def remove_stale_partials(dest: Path) -> list[Path]:
    """A killed download leaves a .part file; it is never resumed from, only removed."""
    stale = sorted(dest.parent.glob(f".{dest.name}.part-*"))
    for path in stale:
        path.unlink(missing_ok=True)
    return stale


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


def _stream_to(response: requests.Response, url: str, partial: Path, chunk_size: int) -> tuple[str, str, int]:
    """Write the body to `partial`; return (sha256 hex, md5 hex, bytes). The zip magic is checked on the
    first four bytes however the body is chunked."""
    sha, md5, size, head = hashlib.sha256(), hashlib.md5(usedforsecurity=False), 0, b""
    with partial.open("wb") as handle:
        for chunk in response.iter_content(chunk_size=chunk_size):
            if len(head) < len(ZIP_MAGIC):
                head += chunk[: len(ZIP_MAGIC) - len(head)]
                if not ZIP_MAGIC.startswith(head):
                    raise DownloadError(f"GET {url} returned data that is not a zip archive (it starts "
                                        f"{(head + chunk)[:16]!r}); nothing was kept.")
            handle.write(chunk)
            sha.update(chunk)
            md5.update(chunk)
            size += len(chunk)
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
) -> ArchiveFile:
    """Download `url` to `dest`. `dest` appears only once the whole, verified file is on disk."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_partials(dest)
    partial = _partial_name(dest)
    try:
        # identity: the body on the wire is the archive itself, so Content-Length counts its bytes
        with requests.get(url, stream=True, timeout=timeout, headers={"Accept-Encoding": "identity"}) as response:
            _check_response(response, url)
            declared = _declared_length(response, url)
            sha_hex, md5_hex, size = _stream_to(response, url, partial, chunk_size)
            received = response.raw.tell()
        if declared is not None and received != declared:
            raise DownloadError(f"GET {url}: received {received} bytes of the {declared} announced; nothing was kept.")
        _verify_pins(url, size, md5_hex, expected_bytes, expected_md5)
        os.replace(partial, dest)
        fsync_directory(dest.parent)
    except requests.RequestException as exc:
        raise DownloadError(
            f"GET {url} failed: {exc}. Nothing was kept; rerun to start the download again, or pass "
            "--archive (SCIFACT_ARCHIVE) with a local copy of scifact.zip."
        ) from exc
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
    return ArchiveFile(dest, url, prefixed(sha_hex), md5_hex, size)


def _verify_pins(
    url: str, size: int, md5_hex: str, expected_bytes: int | None, expected_md5: str | None
) -> None:
    if expected_bytes is not None and size != expected_bytes:
        raise DownloadError(f"GET {url}: archive has {size} bytes, the pinned archive has {expected_bytes}.")
    if expected_md5 is not None and md5_hex != expected_md5:
        raise DownloadError(f"GET {url}: archive md5 is {md5_hex}, the pinned archive has {expected_md5}.")


def fetch_or_reuse(
    url: str, dest: Path, *, expected_bytes: int | None, expected_md5: str | None
) -> ArchiveFile:
    """Reuse a previous download only when it matches the pinned size and md5; else download again."""
    if dest.exists() and expected_bytes is not None and expected_md5 is not None:
        existing = digest_file(dest, url)
        if existing.bytes == expected_bytes and existing.md5 == expected_md5:
            return existing
    return download_archive(url, dest, expected_bytes=expected_bytes, expected_md5=expected_md5)
