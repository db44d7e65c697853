"""Every row's depth-100 ranking replayed, as the top-k rankings are (check_replay.py), at depth 100.

fts_only and vector_only: the lane replayed to depth 100; each document's score within the lane's rounding bound,
each rank one the replay admits, no document the replay certainly ranks inside the top 100 missing. hybrid (the
built-in system's, whose declared fusion is RRF): both lanes replayed at the candidate depth and fused by RRF with
the configured k; each reported fused score within the bounds the replayed lane
ranks give it, and no document the replayed fusion certainly ranks above the list's last one missing. A system's own
lexical engine is asked again through the live system (its depth-100 answers must be the rows' exactly). A mismatch
is named by query, mode and rank.
"""

from typing import Any

from ..core.context import Context
from ..core.declared import replay_parameters
from ..core.modes import fused, has_lane
from ..core.report import Report
from ..retrieval.ir_metrics import DEPTH
from ..retrieval.lanes import Replay, Replayed
from ..retrieval.replay_rows import Ranked, Row, Tally, fused_cut, fusion_bounds, replayed_fusion, single_lane

NAME = "replay.depth"


def _pseudo_row(row: Row, lane: str | None) -> Row:
    """The depth-100 ranking in the form of a row's results (one lane's evidence each, or none when fused)."""
    entry = row["depth_ranking"]
    results = [{"rank": rank, "doc_id": doc_id, "score": score,
                "lanes": {lane: {"rank": rank, "score": score}} if lane else {}}
               for rank, (doc_id, score) in enumerate(zip(entry["doc_ids"], entry["scores"], strict=True), start=1)]
    return {"query_id": row["query_id"], "results": results}


def _ranked(replayed: Replayed, scores: list[tuple[int | None, float]], depth: int) -> Ranked:
    """The exact replay when every reported score is the engine's bit for bit, else the bounded one."""
    exact = bool(scores) and all(index is not None and replayed.reproduces(index, score) for index, score in scores)
    return Ranked.of(replayed.exact() if exact else replayed.bounded(), depth)


class DepthReplayer:
    def __init__(self, ctx: Context, replay: Replay, vectors: dict[str, Any], texts: dict[str, str]) -> None:
        parameters = replay_parameters(ctx)
        self.mode, self.replay, self.vectors, self.texts = ctx.mode, replay, vectors, texts
        fusion = parameters["fusion"] or {}  # the built-in system's: reciprocal rank fusion
        self.depth, self.rrf_k = parameters["depth"], int(fusion.get("k", 0))
        self.float32 = fusion.get("score_dtype") == "float32"
        self.index_of = {doc_id: i for i, doc_id in enumerate(replay.doc_ids)}
        self.tally = Tally()

    def _lane(self, name: str, row: Row, depth: int, reported: list[tuple[int | None, float]]) -> Ranked:
        if name == "lexical":
            replayed, _ = self.replay.lexical(self.texts[row["query_id"]])
        else:
            replayed = self.replay.dense(self.vectors[row["query_id"]])
        return _ranked(replayed, reported, depth)

    def row(self, row: Row) -> str | None:
        query, where = row["query_id"], f"mode {self.mode}, query {row['query_id']}"
        if query not in self.texts or query not in self.vectors:
            return f"{where}: not a query of the fixture, nothing to replay"
        entry = row["depth_ranking"]
        if len(entry["doc_ids"]) != len(entry["scores"]):
            return f"{where}: {len(entry['doc_ids'])} doc ids and {len(entry['scores'])} scores, nothing to replay"
        reported = [(self.index_of.get(d), s) for d, s in zip(entry["doc_ids"], entry["scores"], strict=True)]
        if not fused(self.mode):
            name = "lexical" if has_lane(self.mode, "lexical") else "dense"
            ranked = self._lane(name, row, DEPTH, reported)
            expected = [self.replay.doc_ids[i] for i in ranked.head()]
            if len(entry["doc_ids"]) != ranked.size:
                return _first_difference(where, entry["doc_ids"], expected)
            problem = single_lane(_pseudo_row(row, name), name, ranked, self.index_of, self.tally)
            return None if problem is None else f"{where}: depth-100 ranking: {problem}"
        lanes = [self._lane(name, row, self.depth, self._lane_scores(row, name)) for name in ("lexical", "dense")]
        return self._fused(row, lanes, where)

    def _lane_scores(self, row: Row, name: str) -> list[tuple[int | None, float]]:
        """A fused depth-100 list carries no lane scores: the row's top-k lane scores say whether the engine's
        arithmetic is reproduced bit for bit (the exact replay) or not (the bounded one)."""
        return [(self.index_of.get(r["doc_id"]), float(r["lanes"][name]["score"])) for r in row["results"]
                if (r["lanes"].get(name) or {}).get("score") is not None]

    def _fused(self, row: Row, lanes: list[Ranked], where: str) -> str | None:
        entry = row["depth_ranking"]
        for rank, (doc_id, score) in enumerate(zip(entry["doc_ids"], entry["scores"], strict=True), start=1):
            index = self.index_of.get(doc_id)
            low, high = (0.0, 0.0) if index is None else fusion_bounds(lanes, index, self.rrf_k)
            slack = 2.0 ** -23 * high if self.float32 else 0.0
            if high == 0.0 or not low - slack <= score <= high + slack:
                return (f"{where}, depth rank {rank}: {doc_id} has fused score {score!r}; the replayed lanes admit "
                        f"{low:.9g}..{high:.9g}")
        expected = [self.replay.doc_ids[i] for _, i in replayed_fusion(lanes, self.rrf_k, DEPTH, self.replay)]
        if len(entry["doc_ids"]) != len(expected):
            return _first_difference(where, entry["doc_ids"], expected)
        problem = fused_cut(_pseudo_row(row, None), lanes, self.rrf_k, DEPTH, self.replay, self.index_of)
        return None if problem is None else f"{where}: depth-100 ranking: {problem}"


def _first_difference(where: str, found: list[str], expected: list[str]) -> str:
    """A list of another length than the replay's, named at the first rank where the two differ."""
    rank = next((i for i, (a, b) in enumerate(zip(found, expected, strict=False)) if a != b),
                min(len(found), len(expected)))
    return (f"{where}, depth rank {rank + 1}: the row has {found[rank] if rank < len(found) else 'nothing'}, the "
            f"replay {expected[rank] if rank < len(expected) else 'nothing'} ({len(found)} documents; the replay "
            f"ranks {len(expected)})")


def _answered(ctx: Context) -> list[Row]:
    return [row for row in ctx.rows if row["error"] is None and (row.get("depth_ranking") or {}).get("error",
                                                                                                      "") is None]


def check_depth_replay(ctx: Context, report: Report, replay: Replay | None, vectors: dict[str, Any],
                       texts: dict[str, str]) -> None:
    """The depth-100 rankings recomputed independently (the built-in system, or a system's exact dense lane)."""
    rows = _answered(ctx)
    if not any("depth_ranking" in row for row in ctx.rows):
        return
    if replay is None:
        report.fail(NAME, "the depth-100 rankings: no live store and fixture to replay from", "a store", None)
        return
    replayer = DepthReplayer(ctx, replay, vectors, texts)
    for row in rows:
        replayer.tally.note(replayer.row(row))
    problems = replayer.tally.problems
    report.expect(NAME, not problems, f"the depth-100 ranking of every one of {len(rows)} answered rows replayed "
                  f"independently to depth {DEPTH}", "the replayed ranking", problems[:5])


def check_depth_through(ctx: Context, report: Report, answers: dict[str, Any] | None) -> None:
    """The depth-100 rankings of a system's own lexical engine, against the live system asked again."""
    rows = _answered(ctx)
    if not any("depth_ranking" in row for row in ctx.rows):
        return
    if answers is None:
        report.unverified(NAME, "the depth-100 rankings come from the system's own engine, and the live system could "
                          "not be asked again: not verified")
        return
    problems = []
    for row in rows:
        entry, found = row["depth_ranking"], answers.get(row["query_id"]) or {"doc_ids": [], "scores": []}
        wanted = list(zip(entry["doc_ids"], entry["scores"], strict=False))
        now = list(zip(found["doc_ids"], found["scores"], strict=False))
        if wanted != now:
            rank = next((i for i, (a, b) in enumerate(zip(wanted, now, strict=False)) if a != b),
                        min(len(wanted), len(now)))
            problems.append(f"mode {ctx.mode}, query {row['query_id']}, depth rank {rank + 1}: the row has "
                            f"{wanted[rank] if rank < len(wanted) else None}, the live system answers "
                            f"{now[rank] if rank < len(now) else None}")
    report.expect(NAME, not problems, f"the depth-100 ranking of every one of {len(rows)} answered rows is what the "
                  "live system answers when asked again (replayed through the system, not independently recomputed)",
                  "the live system's answer", problems[:5])
