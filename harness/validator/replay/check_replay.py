"""Every row of every mode replayed from primary data: the fixture's text and query vectors, the live store.

fts_only rows are replayed by an independent BM25 over the fixture's document text; vector_only rows
by float64 dot products of the fixture's query vector with every stored document vector; hybrid rows
by both lanes and reciprocal rank fusion at the configured candidate depth (the built-in system's fusion; a
system of its own that declares its dense lane exact has that lane replayed at its declared candidate depth, and a
convex fusion's recorded dense statistics recomputed from the replayed lane). A row passes when each
reported score is within the lane's rounding tolerance of the replayed score, each reported rank is
one the replay admits (ranks can only differ where replayed scores lie within the tolerance of each
other), and no document the replay certainly ranks inside the cut is missing. Nothing is sampled.
"""

import functools
import json
from typing import Any

from ..core.context import Context
from ..core.declared import is_builtin, replay_parameters
from ..core.digests import sha256_file, sha256_text
from ..core.modes import LANES, fused, has_lane
from ..core.report import Report
from ..retrieval.bm25 import BM25, Tokenizer
from ..retrieval.fusion import statistics_difference
from ..retrieval.lanes import Replay, Replayed, score_of
from ..retrieval.live_store import LiveStore
from ..retrieval.ranking import id_ranks
from ..retrieval.replay_rows import Ranked, Row, Tally, fused_cut, lane_of_hit, single_lane
from ..system.check_through_system import check_through_system, lane_status
from .check_depth_replay import check_depth_replay, check_depth_through


class RowReplayer:
    def __init__(self, ctx: Context, replay: Replay, query_vectors: dict[str, Any], query_texts: dict[str, str]):
        parameters = replay_parameters(ctx)
        self.replay, self.mode = replay, ctx.mode
        self.top_k, self.depth, self.fusion = parameters["top_k"], parameters["depth"], parameters["fusion"] or {}
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
        return Ranked.of(replayed.exact() if exact else replayed.bounded(), depth)

    def _lexical(self, row: Row, depth: int) -> Ranked | None:
        replayed, tokens = self.replay.lexical(self.query_texts[row["query_id"]])
        ranked = self._choose("lexical", replayed, row, depth)
        evidence = row["search_receipt"]["lanes"].get("lexical", {})
        recorded = (evidence.get("query_tokens"), evidence.get("candidates"), evidence.get("depth"))
        if recorded != (tokens, ranked.candidates, ranked.size):
            self.tallies["lexical"].note(
                f"query {row['query_id']}: the replay's (query tokens, candidates, depth) are "
                f"{(tokens, ranked.candidates, ranked.size)!r}, the search receipt says {recorded!r}")
            return None
        return ranked

    def _dense(self, row: Row, depth: int) -> Ranked:
        return self._choose("dense", self.replay.dense(self.query_vectors[row["query_id"]]), row, depth)

    def dense_lane(self, row: Row) -> None:
        """Only the dense lane evidence of a fused row (a system's own hybrid whose lexical lane is its engine's)."""
        if row["error"] is not None:
            return
        tally = self.tallies["dense"]
        tally.rows += 1
        if row["query_id"] not in self.query_vectors:
            tally.note(f"query {row['query_id']} is not a query of the fixture: nothing to replay")
            return
        ranked = self._dense(row, self.depth)
        problem = lane_of_hit(row, "dense", ranked, self.index_of, tally)
        if problem is None and self.fusion.get("method") == "convex":  # what the normalisation used, replayed too
            recorded = row["search_receipt"]["lanes"]["fusion"]["statistics"]["dense"]
            difference = statistics_difference(recorded, ranked.lane.scores[ranked.head()].tolist(),
                                               ranked.lane.tolerance)
            if difference is not None:
                problem = (f"query {row['query_id']}: search_receipt.lanes.fusion.statistics.dense disagrees with the "
                           f"replayed dense lane's top {self.depth}: {difference}")
        tally.note(problem)

    def row(self, row: Row) -> None:
        if row["error"] is not None:
            return  # a failed row ranks nothing and scores zero; rows.results holds it to an empty ranking
        if row["query_id"] not in self.query_texts or row["query_id"] not in self.query_vectors:
            for name in CHECKS[self.mode]:
                self.tallies[name].rows += 1
                self.tallies[name].note(f"query {row['query_id']} is not a query of the fixture: nothing to replay")
            return
        if fused(self.mode):
            self._hybrid(row)
        elif has_lane(self.mode, "lexical"):
            tally, ranked = self.tallies["lexical"], self._lexical(row, self.top_k)
            tally.rows += 1
            if ranked is not None:
                tally.note(single_lane(row, "lexical", ranked, self.index_of, tally))
        else:
            tally = self.tallies["dense"]
            tally.rows += 1
            tally.note(single_lane(row, "dense", self._dense(row, self.top_k), self.index_of, tally))

    def _hybrid(self, row: Row) -> None:
        lexical, dense = self._lexical(row, self.depth), self._dense(row, self.depth)
        self.tallies["lexical"].rows += 1
        self.tallies["dense"].rows += 1
        self.tallies["fusion"].rows += 1
        if lexical is not None:
            self.tallies["lexical"].note(lane_of_hit(row, "lexical", lexical, self.index_of, self.tallies["lexical"]))
        self.tallies["dense"].note(lane_of_hit(row, "dense", dense, self.index_of, self.tallies["dense"]))
        if self.fusion.get("method") != "rrf":  # the built-in system fuses by RRF: nothing else reaches here
            self.tallies["fusion"].note(f"query {row['query_id']}: the replay fuses by RRF; the receipt declares "
                                        f"{self.fusion!r}")
        elif lexical is not None:
            self.tallies["fusion"].note(fused_cut(row, [lexical, dense], int(self.fusion["k"]), self.top_k,
                                                  self.replay, self.index_of))


CHECKS = {mode: (*lanes, *(("fusion",) if fused(mode) else ())) for mode, lanes in LANES.items()}
WHAT = {"lexical": "BM25 lane replayed from the fixture's text", "dense": "dense lane replayed from the fixture's "
        "query vectors and every stored vector", "fusion": "reciprocal rank fusion of the replayed lanes"}


def check_replay(ctx: Context, report: Report, replay: Replay | None, query_vectors: dict[str, Any],
                 query_texts: dict[str, str]) -> None:
    names = CHECKS[ctx.mode]
    if not is_builtin(ctx) and has_lane(ctx.mode, "lexical"):
        # The system's own lexical engine is asked again, not recomputed; a dense lane it declares exact over the
        # fixture's vectors is still replayed independently, inside its hybrid too.
        independent = ("dense",) if replay is not None and has_lane(ctx.mode, "dense") else ()
        check_depth_through(ctx, report, check_through_system(ctx, report,
                                                              tuple(n for n in names if n not in independent)))
        if replay is not None and independent:
            replayer = RowReplayer(ctx, replay, query_vectors, query_texts)
            for row in ctx.rows:
                replayer.dense_lane(row)
            _report(ctx, report, replayer, independent)
        return
    if replay is None:
        for name in names:
            lane_status(report, name, "not verified (nothing to replay from)")
            report.fail(f"replay.{name}", f"{WHAT[name]}: no live store and fixture to replay from", "a store",
                        None)
        check_depth_replay(ctx, report, None, query_vectors, query_texts)
        return
    replayer = RowReplayer(ctx, replay, query_vectors, query_texts)
    for row in ctx.rows:
        replayer.row(row)
    _report(ctx, report, replayer, names)
    check_depth_replay(ctx, report, replay, query_vectors, query_texts)


def _report(ctx: Context, report: Report, replayer: RowReplayer, names: tuple[str, ...]) -> None:
    source = "the fixture and the live store" if is_builtin(ctx) else "the fixture's vectors"
    for name in names:
        tally = replayer.tallies[name]
        passed = not tally.problems and not (tally.exact_rows and tally.bounded_rows)
        lane_status(report, name, f"recomputed independently from {source}" if passed else "disagrees with the replay")
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
    if has_lane(ctx.mode, "lexical"):
        lexical = ctx.receipt["retrieval"]["config"]["lexical"]
        record = json.dumps(store.tokenizer, sort_keys=True)
        key = sha256_file(ctx.fixture_path) + sha256_text(record) + f"/{lexical['k1']!r}/{lexical['b']!r}"
        bm25 = _bm25(key, tuple(texts[d] for d in by_fact), record, float(lexical["k1"]), float(lexical["b"]))
    return Replay(by_fact, id_ranks(by_fact), store.vectors, bm25)
