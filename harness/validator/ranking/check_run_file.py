"""A run made outside the harness (mode run_file): every row's ranking, and its depth-100 ranking, read again by the
validator's own reader from the run file the receipts bind, in trec_eval's order. What the validator recomputes is the
file's bytes, the rankings it holds and every metric; how the rankings were made is the publisher's word, said on its
own line (`ranking.attested`) and on the verdict's."""

from typing import Any

from ..core.context import Context
from ..core.digests import sha256_bytes
from ..core.reading import is_file
from ..core.report import Report
from .run_file import Ranking, Unreadable, read_rankings

NAME = "ranking.run_file"
MODE = "run_file"
DEPTH = 100


def is_run_file(ctx: Context) -> bool:
    """A run file's aggregate: its mode and its system's declaration say so, together."""
    return ctx.mode == MODE and ctx.receipt["system"]["declarations"].get("ranking") == MODE


def _problem(row: dict[str, Any], ranking: Ranking, top_k: int) -> str | None:
    expected = ranking[:top_k]
    found = [(r["doc_id"], r["score"]) for r in row["results"]]
    if found != expected:
        at = next((i for i, pair in enumerate(found) if i >= len(expected) or pair != expected[i]), len(found))
        want = expected[at] if at < len(expected) else "nothing"
        got = found[at] if at < len(found) else "nothing"
        return f"query {row['query_id']}, rank {at + 1}: the row has {got}, the run file {want}"
    depth = row.get("depth_ranking")
    if depth is not None and depth["error"] is None:
        pairs = list(zip(depth["doc_ids"], depth["scores"], strict=True))
        if pairs != ranking[:DEPTH]:
            return f"query {row['query_id']}: the depth-100 ranking is not the run file's first {DEPTH}"
    return None


def check_run_file(ctx: Context, report: Report) -> None:
    store, system = ctx.receipt["store"], ctx.receipt["system"]
    part = store["parts"].get("run")
    run_file = ctx.receipt["retrieval"]["config"].get("run_file") or {}
    directory = ctx.store_dir
    path = None if directory is None or part is None else directory / part["path"]
    if path is None or not is_file(path):
        report.fail(NAME, "the run file the receipts bind is found and read again: "
                    + ctx.places.unplaced("store", "--store-dir DIR"), part, None if path is None else str(path))
        return
    data = path.read_bytes()
    if sha256_bytes(data) != part["sha256"] or run_file.get("sha256") != part["sha256"]:
        report.fail(NAME, f"the run file {path} is the one the receipts bind", part["sha256"], sha256_bytes(data))
        return
    try:
        rankings = read_rankings(data, str(run_file.get("format")))
    except Unreadable as exc:
        report.fail(NAME, f"the run file {path} reads as a run", "a run file", str(exc))
        return
    top_k = int(ctx.receipt["retrieval"]["top_k"])
    problems = [problem for row in ctx.rows if row["error"] is None
                if (problem := _problem(row, rankings.get(row["query_id"], []), top_k)) is not None]
    unranked = sum(1 for row in ctx.rows if not rankings.get(row["query_id"]))
    report.expect(NAME, not problems, f"every one of {len(ctx.rows)} rows' ranking (top {top_k}, and to depth "
                  f"{DEPTH}) is the run file's, read again by the validator from the bytes the receipts bind "
                  f"({part['sha256']}) in trec_eval's order (score descending, then doc id descending)"
                  + (f"; {unranked} of the split's queries the run does not rank score 0" if unranked else ""),
                  "the run file's rankings", problems[:5])
    report.notes["ranking"] = {"kind": "attested", "producers": [system["name"]],
                               "files": [run_file.get("given_name")], "sha256": [part["sha256"]]}
    report.attest("ranking.attested", f"the rankings were made outside the harness, by {system['name']!r} as the "
                  f"publisher names it, in the run file {run_file.get('given_name')!r}: the validator read the file's "
                  "bytes again and recomputed every metric from them; how its rankings were made, and that they are "
                  "that system's, is the publisher's word: nothing was replayed")
