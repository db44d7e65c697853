"""Writing one mode and split's artifact pair: exclusive, and never leaving anything that looks complete.

A run holds OUTPUT/.scifact-<mode>-<split>.lock from its check for earlier artifacts to the rename of its
aggregate, and takes it without waiting: a second run into the same pair is refused, not queued behind
the first to overwrite it. Rows and aggregate are written to hidden temporary files, then a journal
(.scifact-<mode>-<split>.pending.json) naming the run and both digests, then the rows are renamed into
place, then the aggregate, then the journal is removed.

A kill before the renames leaves hidden files only; the next run removes them. A kill between the two
renames leaves a rows file without its aggregate, and the journal that proves the harness wrote it: the
next run moves it to superseded/<time>-interrupted/ and says so. A rows file without an aggregate and
without that proof is refused by name until --replace (or the user) moves it away.
"""

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.atomic import fsync_directory, temporary_sibling, write_bytes_atomic
from harness.errors import RefusedError
from harness.evaluation.receipts.artifacts import aggregate_name, rows_name, superseded_directory
from harness.hashing import sha256_bytes, sha256_file
from harness.locks import try_lock


class OutputBusyError(RefusedError):
    """Another run is writing the same artifact pair."""


class OrphanedRowsError(RefusedError):
    """A rows file without its aggregate is in the way, and nothing proves where it came from."""


@dataclass(frozen=True)
class PairWriter:
    output_dir: Path
    dataset: str  # the name the artifacts carry (harness.corpus.contract.artifact_dataset)
    mode: str
    split: str

    @property
    def rows_path(self) -> Path:
        return self.output_dir / rows_name(self.dataset, self.mode, self.split)

    @property
    def aggregate_path(self) -> Path:
        return self.output_dir / aggregate_name(self.dataset, self.mode, self.split)

    @property
    def journal_path(self) -> Path:
        return self.output_dir / f".{self.dataset}-{self.mode}-{self.split}.pending.json"

    def commit(self, run_id: str, rows: bytes, aggregate: bytes) -> None:
        """Stage both files, record the journal, rename rows then aggregate; on an error, leave neither."""
        staged = [(temporary_sibling(path), path, data) for path, data in
                  ((self.rows_path, rows), (self.aggregate_path, aggregate))]
        renamed: list[Path] = []
        try:
            for temporary, _, data in staged:
                with temporary.open("xb") as handle:
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())
            journal = {"run_id": run_id, "rows": self.rows_path.name, "rows_sha256": sha256_bytes(rows),
                       "aggregate": self.aggregate_path.name, "aggregate_sha256": sha256_bytes(aggregate)}
            write_bytes_atomic(self.journal_path, json.dumps(journal, indent=1).encode("utf-8") + b"\n")
            for temporary, path, _ in staged:
                os.replace(temporary, path)
                renamed.append(path)
            fsync_directory(self.output_dir)
        except BaseException:
            if len(renamed) == 1:  # the rows are ours and have no aggregate: take them back
                renamed[0].unlink(missing_ok=True)
            raise
        finally:
            for temporary, _, _ in staged:
                temporary.unlink(missing_ok=True)
            self.journal_path.unlink(missing_ok=True)
        fsync_directory(self.output_dir)

    def recover(self, replace: bool) -> None:
        """Remove what killed runs of this pair left, or refuse a rows file that no journal explains."""
        for name in (self.rows_path.name, self.aggregate_path.name, self.journal_path.name):
            for leftover in self.output_dir.glob(f".{name}.tmp-*"):
                leftover.unlink(missing_ok=True)
        orphan = self.rows_path.is_file() and not self.aggregate_path.exists()
        if self.journal_path.exists():
            journal = _read_journal(self.journal_path)
            if orphan and journal.get("rows_sha256") == sha256_file(self.rows_path):
                target = superseded_directory(self.output_dir, self.rows_path.name, "-interrupted")
                self.rows_path.rename(target / self.rows_path.name)
                orphan = False
                print(f"note: found {self.rows_path} without its aggregate: the rows of run {journal.get('run_id')}, "
                      f"stopped between writing its rows and its aggregate (its journal proves it); moved them to "
                      f"{target}", file=sys.stderr)
            self.journal_path.unlink()
        if orphan and not replace:
            raise OrphanedRowsError(
                f"found {self.rows_path} without its aggregate {self.aggregate_path.name}: the rows of a run that "
                "did not finish, or a file put there by hand; nothing was written. Pass --replace to move it to "
                f"{self.output_dir / 'superseded'}/, or remove it.")


def _read_journal(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


@contextlib.contextmanager
def exclusive_pair(output_dir: Path, dataset: str, mode: str, split: str, *, replace: bool) -> Iterator[PairWriter]:
    """Hold the pair's lock (or refuse at once), clear what killed runs left, and yield the writer."""
    writer = PairWriter(output_dir, dataset, mode, split)
    lock_path = output_dir / f".{dataset}-{mode}-{split}.lock"
    output_dir.mkdir(parents=True, exist_ok=True)
    with _held(lock_path) as held:
        if not held:
            raise OutputBusyError(
                f"another run is writing {writer.rows_path.name} and {writer.aggregate_path.name} in {output_dir} "
                f"right now (it holds {lock_path}); this run is refused so that neither overwrites the other. Let "
                "it finish, or pass another --output-dir.")
        writer.recover(replace)
        yield writer


@contextlib.contextmanager
def _held(path: Path) -> Iterator[bool]:
    """Try the lock file `path` once; the holder removes it before letting go, so none stays behind. A lock
    taken on a file already removed (its holder let go between our open and our lock) is retried on a new one."""
    while True:
        with path.open("ab") as handle:
            if not try_lock(handle):
                yield False
                return
            try:
                current = os.stat(path).st_ino == os.fstat(handle.fileno()).st_ino
            except FileNotFoundError:
                current = False
            if current:
                try:
                    yield True
                finally:
                    path.unlink(missing_ok=True)
                return
