"""The staging directory a bundle is assembled in, beside the bundle, and what recognises one whose stager died.

A staging directory `.<bundle>.partial-<token>` has a lock file `.<bundle>.partial-<token>.lock` beside it, which
its stager holds (flock) from before the directory exists until after it is renamed into the bundle or removed. The
lock file appears already held (it is linked into place after it is locked), so a lock that can be taken means its
stager is gone: `kill -9` releases a flock with the process. The next bundle in the same place removes such a
directory, saying so in one line, and never touches one whose lock is held.
"""

import os
import secrets
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from harness.errors import EnvironmentProblem
from harness.locks import try_lock

INFIX = ".partial-"
LOCK_SUFFIX = ".lock"


def lock_of(staging: Path) -> Path:
    return staging.with_name(staging.name + LOCK_SUFFIX)


def _held_lock(bundle_dir: Path, provisional: Path) -> Path:
    """Link the held provisional lock under a new staging name; the name it took."""
    for _ in range(100):
        lock = bundle_dir.parent / f".{bundle_dir.name}{INFIX}{secrets.token_hex(6)}{LOCK_SUFFIX}"
        try:
            os.link(provisional, lock)  # fails if the name exists: never replaces another stager's lock
        except FileExistsError:
            continue
        return lock
    raise EnvironmentProblem(f"no free staging name beside {bundle_dir} after 100 tries; remove the "
                             f".{bundle_dir.name}{INFIX}* entries of stopped bundles, then rerun")


@contextmanager
def staging_directory(bundle_dir: Path) -> Iterator[Path]:
    """A new, empty staging directory beside `bundle_dir`, held for the block; removed if the block fails. Inside the
    block, `publish` renames it into place."""
    # Locked under a name no other bundle looks at, then linked under the staging name: it appears already held.
    descriptor, name = tempfile.mkstemp(prefix=".stager-", dir=bundle_dir.parent)
    provisional = Path(name)
    with os.fdopen(descriptor, "r+b") as handle:
        try:
            if not try_lock(handle):
                raise EnvironmentProblem(f"could not lock the new file {provisional}; rerun the bundle")
            lock = _held_lock(bundle_dir, provisional)
        finally:
            provisional.unlink(missing_ok=True)
        staging = lock.with_name(lock.name.removesuffix(LOCK_SUFFIX))
        try:
            staging.mkdir()  # a directory of that name that is not ours stops here, untouched
        except BaseException:
            lock.unlink(missing_ok=True)
            raise
        try:
            yield staging
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        finally:
            lock.unlink(missing_ok=True)  # still held: no other bundle can take it for a dead one meanwhile


def publish(staging: Path, bundle_dir: Path) -> None:
    """The staged bundle, renamed into place (its lock file goes when the staging block ends)."""
    staging.rename(bundle_dir)


def remove_dead_staging(directory: Path) -> list[Path]:
    """Remove every staging directory in `directory` whose stager no longer holds its lock (and every such lock
    left without its directory); one line on stderr for each directory removed. A staging directory without a lock
    file is not known to be dead, and is left as it is."""
    removed = []
    for lock in sorted(directory.glob(f".*{INFIX}*{LOCK_SUFFIX}")):
        staging = lock.with_name(lock.name.removesuffix(LOCK_SUFFIX))
        try:
            handle = lock.open("rb")
        except OSError:
            continue  # gone meanwhile (its stager finished, or another bundle removed it)
        with handle:
            if not try_lock(handle):
                continue  # held: a bundle is being made in it now
            if staging.is_dir():
                shutil.rmtree(staging, ignore_errors=True)
                removed.append(staging)
                print(f"removed {staging}: the staging directory of a bundle that stopped before it finished (its "
                      "process no longer holds its lock)", file=sys.stderr, flush=True)
            with suppress(FileNotFoundError):
                lock.unlink()
    return removed
