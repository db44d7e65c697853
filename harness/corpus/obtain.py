"""Where a dataset's archive comes from and whether it is the contract's: the path given, else a download (or the
one already made) under a work directory; its size and md5 held to the contract's pin. `build` and the calibration
loader (harness/evaluation/tuning/calibration.py) both take the archive this way."""

from pathlib import Path

from harness.corpus.contract import Contract
from harness.corpus.deadline import deadline_seconds
from harness.corpus.download import ArchiveFile, digest_file, fetch_or_reuse
from harness.errors import ArchiveDigestMismatch, HarnessError


def archive_name(contract: Contract) -> str:
    """The publisher's file name of the archive (scifact.zip), where downloads keep it."""
    return (contract.source_url or "").rsplit("/", 1)[-1] or f"{contract.namespace}.zip"


def archive_pin_holds(contract: Contract, archive: ArchiveFile, allow_unpinned: bool) -> bool:
    """Whether the archive is the contract's by size and md5; a contract pinned by nothing else refuses another
    archive unless `allow_unpinned` (then recorded as unpinned)."""
    holds = (archive.bytes, archive.md5) == (contract.source_archive_bytes, contract.source_archive_md5)
    if contract.pinned_by_archive_only and not holds and not allow_unpinned:  # the contract pins both (from_mapping)
        raise ArchiveDigestMismatch(str(archive.path), contract.name, (archive.bytes, archive.md5),
                                    (contract.source_archive_bytes, contract.source_archive_md5))
    return holds


def obtain_archive(contract: Contract, work_dir: Path, archive: Path | None, url: str | None,
                   deadline: float | None = None) -> ArchiveFile:
    if archive is not None:
        if not archive.is_file():
            problem = "is a directory" if archive.is_dir() else "does not exist"
            raise HarnessError(f"archive {archive} {problem}; pass the path of the dataset's BEIR zip "
                               f"({archive_name(contract)})")
        return digest_file(archive.resolve())
    source = url or contract.source_url
    if source is None:
        raise HarnessError(f"contract {contract.name!r} names no download URL; pass --archive")
    pinned = source == contract.source_url
    return fetch_or_reuse(
        source, work_dir / "download" / archive_name(contract),
        expected_bytes=contract.source_archive_bytes if pinned else None,
        expected_md5=contract.source_archive_md5 if pinned else None,
        max_bytes=contract.limits.max_archive_bytes, deadline=deadline_seconds() if deadline is None else deadline,
    )
