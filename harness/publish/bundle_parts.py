"""A part the bundle carries (a file, or a directory of files), read once and held to the digest the receipts bind
before anything is written: a file by its sha256, a directory by the canonical digest of its files' sha256s."""

from pathlib import Path

from harness.atomic import write_file
from harness.hashing import sha256_bytes, sha256_canonical
from harness.publish.bundle_error import BundleError

Writes = list[tuple[Path, dict[str, bytes]]]  # each target with the bytes read and checked for it


def _read(path: Path) -> dict[str, bytes]:
    """A part's bytes, read once: a file as {"": bytes}, a directory as {relative path: bytes} of every file."""
    if path.is_file():
        return {"": path.read_bytes()}
    if path.is_dir():
        return {p.relative_to(path).as_posix(): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}
    raise FileNotFoundError(path)


def _digest(files: dict[str, bytes]) -> str:
    if list(files) == [""]:
        return sha256_bytes(files[""])
    return sha256_canonical({name: sha256_bytes(data) for name, data in files.items()})


def write_files(target: Path, files: dict[str, bytes]) -> None:
    """The part's bytes written at `target` (a file), or under it (a directory's files)."""
    for name, data in files.items():
        (target / name if name else target).parent.mkdir(parents=True, exist_ok=True)
        write_file(target / name if name else target, data)


def checked(source: Path, digest: str, what: str, fix: str) -> dict[str, bytes]:
    """`source`'s bytes when they are what the receipts bind (`digest`), else refused naming it, the digests and
    `fix`."""
    try:
        files = _read(source)
    except OSError as exc:
        raise BundleError(f"{what} {source} cannot be read ({getattr(exc, 'strerror', None) or exc}): the bundle "
                          f"carries it as the receipts bind it; {fix}") from exc
    found = _digest(files)
    if found != digest:
        raise BundleError(f"{what} {source} is not what the receipts bind (they bind {digest}; it is now {found}), so "
                          f"nothing was bundled; {fix}")
    return files
