"""Read members straight out of a zip archive after checking that every member is safe.

Nothing is extracted to disk. Refused: absolute paths, '..' components, backslashes, NUL bytes,
symlinks, encrypted members, unknown compression, duplicate names, entries whose bytes overlap
another entry (the overlapping-file zip bomb), and archives beyond the entry-count, total-size or
compression-ratio caps. Members are inflated from their raw bytes, never past the declared size, and
must end exactly there with the declared CRC, since headers can lie.
"""

import builtins
import hashlib
import itertools
import stat
import struct
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from harness.corpus.contract import ArchiveLimits
from harness.errors import ArchiveSafetyError
from harness.hashing import prefixed

_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")
_LOCAL_MAGIC = b"PK\x03\x04"
_ALLOWED_COMPRESSION = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED}


@dataclass(frozen=True)
class Member:
    name: str
    bytes: int
    sha256: str
    data: builtins.bytes  # the field named `bytes` shadows the builtin inside this class


def _check_name(name: str) -> None:
    if not name:
        raise ArchiveSafetyError("archive has a member with an empty name")
    if "\x00" in name or "\\" in name:
        raise ArchiveSafetyError(f"member {name!r} has a NUL byte or backslash in its name")
    path = PurePosixPath(name)
    if path.is_absolute() or (len(name) > 1 and name[1] == ":"):
        raise ArchiveSafetyError(f"member {name!r} has an absolute path")
    if ".." in path.parts:
        raise ArchiveSafetyError(f"member {name!r} has a '..' component (path traversal)")


def _check_entry(info: zipfile.ZipInfo, limits: ArchiveLimits) -> None:
    _check_name(info.filename)
    mode = info.external_attr >> 16
    if info.create_system == 3 and stat.S_ISLNK(mode):
        raise ArchiveSafetyError(f"member {info.filename!r} is a symbolic link")
    if info.flag_bits & 0x1:
        raise ArchiveSafetyError(f"member {info.filename!r} is encrypted")
    if info.compress_type not in _ALLOWED_COMPRESSION:
        raise ArchiveSafetyError(
            f"member {info.filename!r} uses compression method {info.compress_type}; only stored and deflate are read"
        )
    if info.file_size > 0 and info.file_size > limits.max_compression_ratio * max(info.compress_size, 1):
        raise ArchiveSafetyError(
            f"member {info.filename!r} expands {info.compress_size} bytes to {info.file_size} "
            f"(ratio above the cap of {limits.max_compression_ratio}); refusing a possible zip bomb"
        )


def _inflate(name: str, raw: bytes, declared: int) -> bytes:
    """Inflate at most declared + 1 bytes: enough to catch a stream that runs long, never a bomb."""
    inflater = zlib.decompressobj(-zlib.MAX_WBITS)
    try:
        data = inflater.decompress(raw, declared + 1)
    except zlib.error as exc:
        raise ArchiveSafetyError(f"member {name!r} is damaged: its deflate stream is invalid ({exc})") from exc
    if len(data) > declared or inflater.unconsumed_tail:
        raise ArchiveSafetyError(f"member {name!r} decompresses past its declared {declared} bytes")
    if not inflater.eof:
        raise ArchiveSafetyError(f"member {name!r} is damaged: its deflate stream ends early")
    return data


def _entry_span(handle: zipfile.ZipFile, info: zipfile.ZipInfo) -> tuple[int, int]:
    """Byte range of the local header plus compressed data, read from the local header itself."""
    fp = handle.fp
    assert fp is not None
    fp.seek(info.header_offset)
    raw = fp.read(_LOCAL_HEADER.size)
    if len(raw) != _LOCAL_HEADER.size or raw[:4] != _LOCAL_MAGIC:
        raise ArchiveSafetyError(f"member {info.filename!r} has no valid local header at its offset")
    fields = _LOCAL_HEADER.unpack(raw)
    name_length, extra_length = fields[-2], fields[-1]
    end = info.header_offset + _LOCAL_HEADER.size + name_length + extra_length + info.compress_size
    return info.header_offset, end


class SafeArchive:
    """A zip archive whose member table passed every safety check."""

    def __init__(self, path: Path, limits: ArchiveLimits) -> None:
        self.path = path
        self.limits = limits
        try:
            self._zip = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError) as exc:
            raise ArchiveSafetyError(f"{path} is not a readable zip archive: {exc}") from exc
        self.infos = self._zip.infolist()
        self._check_table()

    def _check_table(self) -> None:
        if len(self.infos) > self.limits.max_members:
            raise ArchiveSafetyError(
                f"archive has {len(self.infos)} members; the cap is {self.limits.max_members}"
            )
        seen: set[str] = set()
        total = 0
        for info in self.infos:
            _check_entry(info, self.limits)
            if info.filename in seen:
                raise ArchiveSafetyError(f"member name {info.filename!r} appears more than once")
            seen.add(info.filename)
            total += info.file_size
        if total > self.limits.max_total_uncompressed_bytes:
            raise ArchiveSafetyError(
                f"members declare {total} uncompressed bytes; the cap is {self.limits.max_total_uncompressed_bytes}"
            )
        spans = sorted((*_entry_span(self._zip, info), info.filename) for info in self.infos)
        for (_, end, name), (start, _, next_name) in itertools.pairwise(spans):
            if start < end:
                raise ArchiveSafetyError(f"members {name!r} and {next_name!r} overlap in the archive's bytes")

    @property
    def file_names(self) -> list[str]:
        return [info.filename for info in self.infos if not info.is_dir()]

    def read(self, name: str) -> Member:
        """Decompress one member from its raw bytes, requiring exactly the declared size and CRC.

        zipfile itself stops at the declared size, so a header that under-declares would silently cut
        the data; reading the raw stream ourselves lets us insist that it ends exactly there.
        """
        try:
            info = self._zip.getinfo(name)
        except KeyError:
            raise ArchiveSafetyError(
                f"archive has no member {name!r}; it has {sorted(self.file_names)}"
            ) from None
        _, end = _entry_span(self._zip, info)
        fp = self._zip.fp
        assert fp is not None
        fp.seek(end - info.compress_size)
        raw = fp.read(info.compress_size)
        if len(raw) != info.compress_size:
            raise ArchiveSafetyError(f"member {name!r} is damaged: its data runs past the end of the archive")
        data = raw if info.compress_type == zipfile.ZIP_STORED else _inflate(name, raw, info.file_size)
        if len(data) != info.file_size:
            raise ArchiveSafetyError(
                f"member {name!r} holds {len(data)} bytes but declares {info.file_size}; refusing a lying header"
            )
        if zlib.crc32(data) != info.CRC:
            raise ArchiveSafetyError(f"member {name!r} is damaged: its CRC-32 does not match")
        return Member(name, len(data), prefixed(hashlib.sha256(data).hexdigest()), data)

    def close(self) -> None:
        self._zip.close()

    def __enter__(self) -> "SafeArchive":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
