"""Every row of every mode replayed from primary data: the fixture's text and query vectors, the live store.

fts_only rows are replayed by an independent BM25 over the fixture's document text; vector_only rows
by float64 dot products of the fixture's query vector with every stored document vector; hybrid rows
by both lanes and reciprocal rank fusion at the configured candidate depth. A row passes when each
reported score is within the lane's rounding tolerance of the replayed score, each reported rank is
one the replay admits (ranks can only differ where replayed scores lie within the tolerance of each
other), and no document the replay certainly ranks inside the cut is missing. Nothing is sampled.
"""

import functools
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .bm25 import BM25, Tokenizer
from .context import Context
from .digests import sha256_file, sha256_text
from .lanes import Replay, Replayed, describe, score_of
from .live_store import LiveStore
from .ranking import Lane, id_ranks
from .report import Report

Row = dict[str, Any]


@dataclass
class Tally:
    rows: int = 0
    exact_rows: int = 0  # rows whose scores are the engine's float32 scores bit for bit
    bounded_rows: int = 0  # rows checked against the float64 replay within the rounding bound
    bounded_queries: list[str] = field(default_factory=list)
    ranks: int = 0
    within_tolerance: int = 0  # reported ranks the replay could not decide alone (scores within the tolerance)
    problems: list[str] = field(default_factory=list)

    def note(self, problem: str | None) -> None:
        if problem is not None and len(self.problems) < 5:
            self.problems.append(problem)


@dataclass(frozen=True)
class Ranked:
    """A lane's replayed ranking with the ranks it admits for each document (0 for a non-candidate)."""

    lane: Lane
    size: int  # how many documents the lane returns
    low: NDArray[np.int64]  # per document index
    high: NDArray[np.int64]
    order: NDArray[np.intp]  # replayed ranking of the candidates

    @classmethod
    def of(cls, lane: Lane, depth: int) -> "Ranked":
        low, high = np.zeros(lane.scores.size, dtype=np.int64), np.zeros(lane.scores.size, dtype=np.int64)
        low[lane.candidates], high[lane.candidates] = lane.admissible()
        return cls(lane, min(depth, lane.candidates.size), low, high, lane.order())

    def admits(self, index: int | None) -> bool:
        return index is not None and self.low[index] > 0

    def expected_at(self, rank: int) -> str:
        return describe(self.lane, int(self.order[rank - 1])) if rank <= self.order.size else "nothing"

    def within(self, cut: int, *, certainly: bool) -> NDArray[np.intp]:
        """Documents the replay ranks within the top `cut` certainly, or possibly."""
        bound = self.high if certainly else self.low
        return np.flatnonzero((self.low > 0) & (bound <= cut))


def _ranked_entry(query: str, lane_name: str, ranked: Ranked, index: int | None, doc_id: str, rank: int,
                  score: float | None, tally: Tally) -> str | None:
    """A reported (rank, score) of one document in one lane, against the replay."""
    where = f"query {query}, {lane_name} rank {rank}"
    if index is None or not ranked.admits(index):
        return f"{where}: {doc_id} is not a document this lane can return; expected {ranked.expected_at(rank)}"
    lane = ranked.lane
    if score is None or abs(score - lane.scores[index]) > lane.tolerance:
        return (f"{where}: {doc_id} has score {score!r}, the replay {lane.scores[index]:.9g} "
                f"(tolerance {lane.tolerance:.3g})")
    if rank > ranked.size or not ranked.low[index] <= rank <= ranked.high[index]:
        return (f"{where}: expected {ranked.expected_at(rank)}, found {describe(lane, index)} with score {score:.9g}; "
                f"the replay admits ranks {ranked.low[index]}..{ranked.high[index]} for it "
                f"(tolerance {lane.tolerance:.3g})")
    tally.ranks += 1
    tally.within_tolerance += int(ranked.low[index] != ranked.high[index])
    return None


def _single(row: Row, lane_name: str, ranked: Ranked, index_of: dict[str, int], tally: Tally) -> str | None:
    query, results = row["query_id"], row["results"]
    if len(results) != ranked.size:
        return (f"query {query}: {len(results)} results; the replayed {lane_name} lane has {ranked.order.size} "
                f"candidates, so {ranked.size} results")
    for rank, result in enumerate(results, start=1):
        entry = result["lanes"].get(lane_name) or {}
        if set(result["lanes"]) != {lane_name} or entry.get("rank") != rank or entry.get("score") != result["score"]:
            return f"query {query}, rank {rank}: lane evidence {result['lanes']!r} is not this {lane_name} rank"
        problem = _ranked_entry(query, lane_name, ranked, index_of.get(result["doc_id"]), result["doc_id"], rank,
                                score_of(result), tally)
        if problem:
            return problem
    reported = {index_of[r["doc_id"]] for r in results}
    missing = [int(d) for d in ranked.within(ranked.size, certainly=True) if int(d) not in reported]
    if missing:
        return f"query {query}: {describe(ranked.lane, missing[0])} certainly ranks within the top {ranked.size}, " \
               "but the row does not return it"
    return None


def _lane_of_hit(row: Row, lane_name: str, ranked: Ranked, index_of: dict[str, int], tally: Tally) -> str | None:
    for result in row["results"]:
        entry = result["lanes"][lane_name]
        index, rank = index_of.get(result["doc_id"]), entry["rank"]
        if rank is None:
            if entry["score"] is not None:
                return f"query {row['query_id']}: {result['doc_id']} has a {lane_name} score but no {lane_name} rank"
            if index is not None and ranked.admits(index) and ranked.high[index] <= ranked.size:
                return (f"query {row['query_id']}: {describe(ranked.lane, index)} certainly ranks within the "
                        f"{lane_name} lane's top {ranked.size} (ranks {ranked.low[index]}..{ranked.high[index]}), "
                        "but the row gives it no lane rank")
            continue
        problem = _ranked_entry(row["query_id"], lane_name, ranked, index, result["doc_id"], rank,
                                score_of(entry), tally)
        if problem:
            return problem
    return None


def _fusion_bounds(lanes: list[Ranked], index: int, rrf_k: int) -> tuple[float, float]:
    """Lowest and highest fused score the replay admits for a document."""
    low = high = 0.0
    for ranked in lanes:
        if ranked.admits(index) and ranked.low[index] <= ranked.size:
            high += 1.0 / (rrf_k + ranked.low[index])
            if ranked.high[index] <= ranked.size:
                low += 1.0 / (rrf_k + ranked.high[index])
    return low, high


def _replayed_fusion(lanes: list[Ranked], rrf_k: int, top_k: int, replay: Replay) -> list[tuple[float, int]]:
    fused: dict[int, float] = {}
    for ranked in lanes:
        for rank, index in enumerate(ranked.order[:ranked.size].tolist(), start=1):
            fused[index] = fused.get(index, 0.0) + 1.0 / (rrf_k + rank)
    return sorted(((score, index) for index, score in fused.items()),
                  key=lambda pair: (-pair[0], replay.id_ranks[pair[1]]))[:top_k]


def _fused(row: Row, lanes: list[Ranked], rrf_k: int, top_k: int, replay: Replay,
           index_of: dict[str, int]) -> str | None:
    """No document the replay certainly fuses above the row's last result is missing from the row."""
    results = row["results"]
    full = len(results) == top_k
    cutoff = results[-1]["score"] if full else 0.0
    last = index_of.get(results[-1]["doc_id"]) if results else None
    reported = {index_of.get(r["doc_id"]) for r in results}
    considered = {int(d) for ranked in lanes for d in ranked.within(ranked.size, certainly=False)} - reported
    for index in sorted(considered, key=lambda d: replay.id_ranks[d]):
        low, high = _fusion_bounds(lanes, index, rrf_k)
        certain_tie = low == high == cutoff and full and last is not None \
            and replay.id_ranks[index] < replay.id_ranks[last]
        if low > cutoff or certain_tie:
            expected = _replayed_fusion(lanes, rrf_k, top_k, replay)
            rank = next((r for r, (_, i) in enumerate(expected, start=1) if i == index), None)
            return (f"query {row['query_id']}: the replay fuses {replay.doc_ids[index]} to at least {low:.9g} "
                    f"(rank {rank} of the replayed fusion), above the row's cut at {cutoff:.9g}, but the row "
                    "does not return it")
    return None


class RowReplayer:
    def __init__(self, ctx: Context, replay: Replay, query_vectors: dict[str, Any], query_texts: dict[str, str]):
        config = ctx.receipt["retrieval"]["config"]
        self.replay, self.mode = replay, ctx.mode
        self.top_k, self.depth, self.rrf_k = config["top_k"], config["hybrid_candidate_depth"], config["rrf_k"]
        self.query_vectors, self.query_texts = query_vectors, query_texts
        self.index_of = {doc_id: i for i, doc_id in enumerate(replay.doc_ids)}
        self.tallies = {name: Tally() for name in ("lexical", "dense", "fusion")}

    def _choose(self, name: str, replayed: Replayed, row: Row, depth: int) -> Ranked:
        """The exact replay when the row's scores are the engine's bit for bit, else the bounded one."""
        reported = [(self.index_of.get(r["doc_id"]), score_of(r["lanes"].get(name) or {})) for r in row["results"]
                    if (r["lanes"].get(name) or {}).get("rank") is not None]
        exact = all(index is not None and replayed.reproduces(index, score) for index, score in reported)
        if reported:
            self.tallies[name].exact_rows += exact
            self.tallies[name].bounded_rows += not exact
            if not exact:
                self.tallies[name].bounded_queries.append(row["query_id"])
        return Ranked.of(replayed.exact() if exact else replayed.bounded, depth)

    def _lexical(self, row: Row, depth: int) -> Ranked | None:
        replayed, tokens = self.replay.lexical(self.query_texts[row["query_id"]])
        ranked = self._choose("lexical", replayed, row, depth)
        evidence = row["search_receipt"]["lanes"].get("lexical", {})
        recorded = (evidence.get("query_tokens"), evidence.get("candidates"), evidence.get("depth"))
        if recorded != (tokens, ranked.order.size, ranked.size):
            self.tallies["lexical"].note(
                f"query {row['query_id']}: the replay's (query tokens, candidates, depth) are "
                f"{(tokens, ranked.order.size, ranked.size)!r}, the search receipt says {recorded!r}")
            return None
        return ranked

    def _dense(self, row: Row, depth: int) -> Ranked:
        return self._choose("dense", self.replay.dense(self.query_vectors[row["query_id"]]), row, depth)

    def row(self, row: Row) -> None:
        if row["error"] is not None:
            return  # a failed row ranks nothing and scores zero; rows.results holds it to an empty ranking
        if self.mode == "fts_only":
            tally, ranked = self.tallies["lexical"], self._lexical(row, self.top_k)
            tally.rows += 1
            if ranked is not None:
                tally.note(_single(row, "lexical", ranked, self.index_of, tally))
        elif self.mode == "vector_only":
            tally = self.tallies["dense"]
            tally.rows += 1
            tally.note(_single(row, "dense", self._dense(row, self.top_k), self.index_of, tally))
        else:
            self._hybrid(row)

    def _hybrid(self, row: Row) -> None:
        lexical, dense = self._lexical(row, self.depth), self._dense(row, self.depth)
        self.tallies["lexical"].rows += 1
        self.tallies["dense"].rows += 1
        self.tallies["fusion"].rows += 1
        if lexical is not None:
            self.tallies["lexical"].note(_lane_of_hit(row, "lexical", lexical, self.index_of, self.tallies["lexical"]))
        self.tallies["dense"].note(_lane_of_hit(row, "dense", dense, self.index_of, self.tallies["dense"]))
        if lexical is not None:
            self.tallies["fusion"].note(_fused(row, [lexical, dense], self.rrf_k, self.top_k, self.replay,
                                               self.index_of))


CHECKS = {"fts_only": ("lexical",), "vector_only": ("dense",), "hybrid": ("lexical", "dense", "fusion")}
WHAT = {"lexical": "BM25 lane replayed from the fixture's text", "dense": "dense lane replayed from the fixture's "
        "query vectors and every stored vector", "fusion": "reciprocal rank fusion of the replayed lanes"}


def check_replay(ctx: Context, report: Report, replay: Replay | None, query_vectors: dict[str, Any],
                 query_texts: dict[str, str]) -> None:
    names = CHECKS[ctx.mode]
    if replay is None:
        for name in names:
            report.fail(f"replay.{name}", f"{WHAT[name]}: no live store and fixture to replay from", "a store",
                        None)
        return
    replayer = RowReplayer(ctx, replay, query_vectors, query_texts)
    for row in ctx.rows:
        replayer.row(row)
    for name in names:
        tally = replayer.tallies[name]
        if tally.exact_rows and tally.bounded_rows:
            tally.problems.append(f"the engine's float32 arithmetic reproduces the scores of {tally.exact_rows} rows "
                                  f"bit for bit but not those of {tally.bounded_rows} (queries "
                                  f"{', '.join(tally.bounded_queries[:5])}): one run cannot give both")
        if tally.problems:
            report.fail(f"replay.{name}", f"{WHAT[name]}: {len(tally.problems)}+ rows disagree; first: "
                        f"{tally.problems[0]}", "the replayed ranking", tally.problems)
        elif name == "fusion":
            report.ok("replay.fusion", f"{WHAT[name]}: all {tally.rows} answered rows agree (no document the "
                      "replayed fusion ranks inside a cut is missing)")
        elif tally.bounded_rows:
            report.ok(f"replay.{name}", f"{WHAT[name]}: all {tally.rows} answered rows agree within the rounding "
                      f"bound; the engine's float32 scores were not reproduced bit for bit here, so "
                      f"{tally.within_tolerance} of {tally.ranks} ranks lie within the bound of a neighbour and "
                      "could be ordered either way")
        else:
            report.ok(f"replay.{name}", f"{WHAT[name]}: all {tally.rows} answered rows agree exactly: every one of "
                      f"{tally.ranks} scores is the engine's float32 score bit for bit, every rank the replay's")
    report.notes[f"replay.{ctx.mode}"] = {name: {"rows": replayer.tallies[name].rows,
                                                  "bit_exact_rows": replayer.tallies[name].exact_rows,
                                                  "bounded_rows": replayer.tallies[name].bounded_rows,
                                                  "ranks_within_bound": replayer.tallies[name].within_tolerance}
                                          for name in names if name != "fusion"}


@functools.lru_cache(maxsize=4)
def _bm25(key: str, texts: tuple[str, ...], record_json: str, k1: float, b: float) -> BM25:
    """One index per fixture, tokenizer and parameters in a process (six aggregates share it); `key` names them."""
    return BM25(list(texts), Tokenizer.from_record(json.loads(record_json)), k1, b)


def load_replay(ctx: Context, store: LiveStore) -> Replay | None:
    """The replay's inputs: documents in the store's fact-id order, their stored vectors, the fixture's text."""
    fixture = ctx.fixture
    if fixture is None or ctx.fixture_path is None:
        return None
    by_fact = sorted(store.doc_to_fact, key=store.doc_to_fact.__getitem__)
    texts = {d["doc_id"]: f"{d['title'].strip()} {d['text'].strip()}" for d in fixture["documents"]}
    if set(by_fact) != set(texts) or store.vectors.shape[0] != len(by_fact):
        return None
    bm25 = None
    if ctx.mode != "vector_only":
        lexical = ctx.receipt["retrieval"]["config"]["lexical"]
        record = json.dumps(store.tokenizer, sort_keys=True)
        key = sha256_file(ctx.fixture_path) + sha256_text(record) + f"/{lexical['k1']!r}/{lexical['b']!r}"
        bm25 = _bm25(key, tuple(texts[d] for d in by_fact), record, float(lexical["k1"]), float(lexical["b"]))
    return Replay(by_fact, id_ranks(by_fact), store.vectors, bm25)
