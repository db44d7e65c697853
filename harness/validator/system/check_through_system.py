"""A lane the validator cannot recompute on its own, checked through the live system.

A system's own lexical engine (its analyzer, its BM25) has no independent implementation here. The validator
asks the live system every query of the run again, in a separate process (`python -m harness replay`, so that
no harness module enters the validator's own), and compares every answer with its row: the same documents in
the same order, the same scores and lane evidence. Passing shows the rows are what the live system answers; it
does not show the engine ranks correctly, and the report says so in words. Without the live system the lanes
are not verified, never passed.
"""

import json
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..core.context import Context
from ..core.digests import sha256_file
from ..core.reading import is_dir, note
from ..core.report import Report
from ..core.source_tree import HARNESS_DIR, harness_source_files

TIMEOUT_SECONDS = 1800
THROUGH = ("replayed through the system: the live system was asked every query again and answered exactly the "
           "rows; not independently recomputed")


_SHARED: dict[tuple[str, ...], dict[str, Any]] = {}  # answers of one shared replay, while `shared_replays` lasts


def _key(aggregate: Path, store: Path | None, fixture: Path | None, source: Path | None) -> tuple[str, ...]:
    """An aggregate's bytes and the places its replay reads: answers are reused only for exactly these."""
    places = [str(p.resolve()) if p is not None else "" for p in (store, fixture, source)]
    return (str(aggregate.resolve()), sha256_file(aggregate), *places)


def _run(aggregates: Sequence[Path], store: Path | None, fixture: Path | None,
         source: Path | None) -> tuple[dict[str, Any] | None, str]:
    command = [sys.executable, "-m", "harness", "replay"]
    for aggregate in aggregates:
        command += ["--aggregate", str(aggregate.resolve())]
    if store is not None:  # the store and fixture the validator found, whichever way: the replay reads them
        command += ["--store-dir", str(store.resolve())]
    if fixture is not None:
        command += ["--fixture", str(fixture.resolve())]
    if source is not None and is_dir(source):
        command += ["--system-path", str(source.resolve())]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HARNESS_DIR.parent), *sys.path])}
    try:
        done = subprocess.run(command, cwd=HARNESS_DIR.parent, env=env, capture_output=True, text=True,
                              timeout=TIMEOUT_SECONDS, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"{type(exc).__name__}: {exc}"
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        return None, lines[-1] if lines else f"exit {done.returncode}"
    try:
        answers: dict[str, Any] = json.loads(done.stdout)
    except ValueError as exc:
        return None, f"the replay printed no JSON: {exc}"
    return answers, ""


@contextmanager
def shared_replays(aggregates: Sequence[Path], store: Path | None, fixture: Path | None,
                   source: Path | None) -> Iterator[str]:
    """For the block, the live system's answers to every aggregate given, asked in one replay process (one worker
    for the aggregates that share a system), used by each aggregate's check with these places and bytes. Yields what
    happened, in words; when that replay fails, each check asks on its own and names the failure."""
    if len(aggregates) < 2:
        yield "nothing to share"
        return
    keys = [_key(a, store, fixture, source) for a in aggregates]
    replayed, problem = _run(aggregates, store, fixture, source)
    answers = (replayed or {}).get("replays")
    shared = isinstance(answers, dict) and all(isinstance(answers.get(str(a.resolve())), dict) for a in aggregates)
    if shared:
        assert isinstance(answers, dict)
        _SHARED.update({key: answers[str(a.resolve())] for key, a in zip(keys, aggregates, strict=True)})
    try:
        yield (f"{len(aggregates)} aggregates replayed in one process" if shared else f"one replay of "
               f"{len(aggregates)} aggregates failed ({problem or 'no answers'}): each is asked on its own")
    finally:
        for key in keys:
            _SHARED.pop(key, None)


def _ask(ctx: Context) -> tuple[dict[str, Any] | None, str]:
    for path in harness_source_files():  # the harness answers for the system: its source is part of what was read
        note(path)
    if _SHARED and (shared := _SHARED.get(_key(ctx.aggregate_path, ctx.store_dir, ctx.fixture_path,
                                               ctx.source_root))) is not None:
        return shared, ""
    return _run([ctx.aggregate_path], ctx.store_dir, ctx.fixture_path, ctx.source_root)


def _difference(row: dict[str, Any], answer: list[dict[str, Any]] | None) -> str | None:
    wanted = [(r["doc_id"], r["score"], r["lanes"]) for r in row["results"]]
    found = None if answer is None else [(a["doc_id"], a["score"], a["lanes"]) for a in answer]
    if found == wanted:
        return None
    if found is None:
        return f"query {row['query_id']}: the system gave no answer"
    rank = next((i for i, (a, b) in enumerate(zip(wanted, found, strict=False)) if a != b),
                min(len(wanted), len(found)))  # the first difference, or where the shorter one ends
    return (f"query {row['query_id']} rank {rank + 1}: the row has {wanted[rank] if rank < len(wanted) else None}, "
            f"the system answers {found[rank] if rank < len(found) else None}")


def lane_status(report: Report, name: str, status: str) -> None:
    """How a lane (or the fusion) of this run was verified, in words, for CLAIMS.md and the report."""
    report.notes.setdefault("lane_verification", {})[name] = status


def check_through_system(ctx: Context, report: Report, names: tuple[str, ...]) -> dict[str, Any] | None:
    """`names`: the lanes (and fusion) of the mode that are checked only through the live system. Returns the live
    system's depth-100 rankings (query id -> {doc_ids, scores}), None when it could not be asked."""
    replayed, problem = _ask(ctx)
    answers = None if replayed is None else replayed.get("top_k")
    if replayed is None or not isinstance(answers, dict) or not isinstance(replayed.get("depth"), dict):
        problem = problem or "the replay printed no top_k and depth answers"
        for name in names:
            lane_status(report, name, "not verified (the live system could not be asked again)")
            report.unverified(f"replay.{name}", f"the {name} lane is the system's own engine; the live system could "
                              f"not be asked again ({problem}): not verified")
        return None
    differing = [d for row in ctx.rows if row["error"] is None
                 for d in [_difference(row, answers.get(row["query_id"]))] if d is not None]
    answered = sum(row["error"] is None for row in ctx.rows)
    for name in names:
        lane_status(report, name, "replayed through the live system, not independently recomputed" if not differing
                    else "disagrees with the live system")
        report.expect(f"replay.{name}", not differing, f"{name} lane {THROUGH} ({answered} rows)", [], differing[:5])
    if not differing:
        report.attest("replay.through_system", f"the {', '.join(names)} lanes of this run were {THROUGH}")
    depth: dict[str, Any] = replayed["depth"]
    return depth
