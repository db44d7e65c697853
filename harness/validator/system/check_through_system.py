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
from typing import Any

from ..core.context import Context
from ..core.reading import is_dir, note
from ..core.report import Report
from ..core.source_tree import HARNESS_DIR, harness_source_files

TIMEOUT_SECONDS = 1800
THROUGH = ("replayed through the system: the live system was asked every query again and answered exactly the "
           "rows; not independently recomputed")


def _ask(ctx: Context) -> tuple[dict[str, Any] | None, str]:
    for path in harness_source_files():  # the harness answers for the system: its source is part of what was read
        note(path)
    command = [sys.executable, "-m", "harness", "replay", "--aggregate", str(ctx.aggregate_path.resolve())]
    if ctx.store_dir is not None:  # the store and fixture the validator found, whichever way: the replay reads them
        command += ["--store-dir", str(ctx.store_dir.resolve())]
    if ctx.fixture_path is not None:
        command += ["--fixture", str(ctx.fixture_path.resolve())]
    source = ctx.source_root
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
