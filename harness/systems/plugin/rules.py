"""The rules of `search` for a system from outside the harness, each broken one named with its fix.

A rule that an answer to one query can break (a repeated or unknown doc id, too many results, a score that is not a
finite number, results out of order, a lane's rank or score out of its range) fails that query: `SearchFailed`, a
row that records the failure. A rule that every answer of the system's code breaks alike (a lane key a hybrid does
not have, lanes on a mode that has one lane, a hybrid with no declared fusion, a convex hybrid that returns no lane
statistics) stops the run at the first query: `SearchStopped`, before a whole split is spent on the same failure.
"""

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

from harness import modes
from harness.systems.declarations import FUSION_FORMS, fusion_problem
from harness.systems.fusion import LaneStatistics
from harness.systems.plugin.api import Result
from harness.systems.protocol import SearchFailed, SearchStopped

LANE_KEYS = ("lexical", "dense")
LANES_FORM = ("Result(doc_id, score, lanes={'lexical': (rank, score), 'dense': (rank, score)}), each rank counting "
              "from 1, and (None, None) for a lane that did not retrieve the document")
STATISTICS_FORM = ("return harness.systems.plugin.fuse(declarations['fusion'], lexical, dense, top_k), a Ranking of "
                   "the results with each lane's LaneStatistics over its candidates")


def _ranks(found: Sequence[int]) -> str:
    listed = [str(rank) for rank in found]
    return listed[0] if len(listed) == 1 else ", ".join(listed[:-1]) + " and " + listed[-1]


def _times(count: int) -> str:
    return {2: "twice", 3: "three times"}.get(count, f"{count} times")


def check_fusion_declared(declarations: Mapping[str, Any]) -> None:
    """A hybrid's rows record its fusion, and the validator recomputes every fused score from it."""
    fusion = declarations.get("fusion")
    if fusion is None:
        raise SearchStopped(f"search('hybrid') needs the system to declare its fusion, and it declares None: declare "
                            f"it as {FUSION_FORMS} (your own k, or weight and normalisation, and candidate depth), so "
                            "each row records it and the validator recomputes every fused score")
    problem = fusion_problem(fusion)
    if problem is not None:
        raise SearchStopped(f"search('hybrid') needs a fusion declaration the harness can read: {problem}")


def _statistics_problem(stats: LaneStatistics, depth: int) -> str | None:
    values = (stats.minimum, stats.maximum, stats.mean, stats.std)
    if not isinstance(stats.candidates, int) or not 0 <= stats.candidates <= depth:
        return f"counts {stats.candidates!r} candidates: from 0 to the candidate depth {depth}"
    if (stats.candidates == 0) != all(value is None for value in values):
        return f"has {stats!r}: min, max, mean and std are numbers when the lane has candidates, else None"
    numbers = [value for value in values if value is not None and math.isfinite(value)]
    if stats.candidates and len(numbers) < len(values):
        return f"has {stats!r}: every statistic is a finite number"
    if stats.candidates and (numbers[0] > numbers[1] or numbers[3] < 0):
        return f"has {stats!r}: min at most max, std at least 0"
    return None


def _outside(lane: tuple[int | None, float | None], stats: LaneStatistics) -> bool:
    """A lane rank beyond the lane's candidates, or a lane score outside their range."""
    lane_rank, lane_score = lane
    if lane_rank is None or lane_score is None:
        return False
    low, high = stats.minimum, stats.maximum
    return lane_rank > stats.candidates or low is None or high is None or not low <= lane_score <= high


def _check_statistics(results: Sequence[Result], statistics: Mapping[str, LaneStatistics], depth: int,
                      latency_ms: float | None) -> None:
    """A convex hybrid's lane statistics: present for both lanes, well formed, and holding every returned lane
    score and rank."""
    missing = [name for name in LANE_KEYS if name not in statistics]
    if missing:
        raise SearchStopped(f"search('hybrid') declares a convex fusion and returned no statistics of its "
                            f"{missing[0]!r} lane, which the normalisation used and the rows record: {STATISTICS_FORM}")
    for name in LANE_KEYS:
        problem = _statistics_problem(statistics[name], depth)
        if problem is not None:
            raise SearchFailed(f"search('hybrid') returned statistics of the {name!r} lane that {problem}; "
                               f"{STATISTICS_FORM}", latency_ms)
        stats = statistics[name]
        for rank, result in enumerate(results, start=1):
            if _outside(result.lanes.get(name, (None, None)), stats):
                raise SearchFailed(f"search('hybrid') returned Result.lanes[{name!r}] {result.lanes[name]!r} "
                                   f"for doc {result.doc_id!r} (rank {rank}) outside the lane's statistics "
                                   f"{stats!r}: the statistics are those of the lane's own candidates; "
                                   f"{STATISTICS_FORM}", latency_ms)


def _check_lane_keys(results: Sequence[Result], mode: str) -> None:
    for rank, result in enumerate(results, start=1):
        if not modes.mode(mode).fusion and result.lanes:
            raise SearchStopped(
                f"search({mode!r}) returned Result.lanes {dict(result.lanes)!r} for doc {result.doc_id!r} (rank "
                f"{rank}): lanes are a hybrid's evidence of its two lanes; in {mode} the ranking is the one lane (its "
                "rank and score are the result's own), so leave lanes empty: Result(doc_id, score)")
        wrong = sorted(str(key) for key in result.lanes if key not in LANE_KEYS)
        if wrong:
            raise SearchStopped(
                f"search({mode!r}) returned Result.lanes key {wrong[0]!r} for doc {result.doc_id!r} (rank {rank}): a "
                f"hybrid's lane keys are 'lexical' and 'dense' only (any other is not recorded, and the validator "
                f"cannot recompute the fusion): rename {wrong[0]!r} to the lane it is; {LANES_FORM}")


def _lane_problem(name: str, lane: tuple[Any, Any], depth: int) -> str | None:
    lane_rank, lane_score = lane
    if (lane_rank is None) != (lane_score is None):
        return f"has rank {lane_rank!r} and score {lane_score!r}: both are given, or both are None"
    if lane_rank is not None and not 1 <= lane_rank <= depth:
        return (f"has rank {lane_rank!r}: a lane's rank counts from 1 in its own top candidate_depth ({depth}), the "
                "documents the fusion takes from it")
    if lane_score is not None and not math.isfinite(lane_score):
        return f"has score {lane_score!r}: a lane's score is a finite number"
    return None


def _check_scores(results: Sequence[Result], mode: str, fusion: Mapping[str, Any], latency_ms: float | None) -> None:
    fused = modes.mode(mode).fusion
    for rank, result in enumerate(results, start=1):
        where = f"doc {result.doc_id!r} (rank {rank})"
        if not math.isfinite(result.score):
            raise SearchFailed(f"search({mode!r}) returned score {result.score!r} for {where}: a score is a finite "
                               "number", latency_ms)
        if fused and fusion["method"] == "rrf" and result.score <= 0:
            raise SearchFailed(f"search({mode!r}) returned score {result.score!r} for {where}: a hybrid's score is "
                               "its fused reciprocal-rank score, greater than 0", latency_ms)
        for name in LANE_KEYS if fused else ():
            problem = _lane_problem(name, result.lanes.get(name, (None, None)), int(fusion["candidate_depth"]))
            if problem is not None:
                raise SearchFailed(f"search({mode!r}) returned Result.lanes[{name!r}] for {where} that {problem}; "
                                   f"{LANES_FORM}", latency_ms)


def _check_order(results: Sequence[Result], mode: str, latency_ms: float | None) -> None:
    for rank, (ahead, behind) in enumerate(itertools.pairwise(results), start=1):
        pair = (f"doc {ahead.doc_id!r} (rank {rank}, score {ahead.score!r}) before doc {behind.doc_id!r} (rank "
                f"{rank + 1}, score {behind.score!r})")
        if ahead.score < behind.score:
            raise SearchFailed(f"search({mode!r}) returned {pair}: results come best first, scores descending",
                               latency_ms)
        if ahead.score == behind.score and ahead.doc_id > behind.doc_id:
            raise SearchFailed(f"search({mode!r}) returned {pair}: equal scores go by doc id ascending, so the "
                               "ranking is deterministic and the validator's order checks hold", latency_ms)


def check_answer(results: Sequence[Result], mode: str, top_k: int, position: Mapping[str, int],
                 declarations: Mapping[str, Any], latency_ms: float | None) -> None:
    """Raise SearchStopped or SearchFailed for the first rule `results` breaks; the search's latency goes with a
    failed row."""
    fused = modes.mode(mode).fusion
    if fused:
        check_fusion_declared(declarations)
    fusion: Mapping[str, Any] = declarations.get("fusion") or {}
    _check_lane_keys(results, mode)
    if len(results) > top_k:
        raise SearchFailed(f"search({mode!r}) returned {len(results)} results for top_k {top_k}: return at most "
                           "top_k, best first", latency_ms)
    seen: dict[str, list[int]] = {}
    for rank, result in enumerate(results, start=1):
        if result.doc_id not in position:
            raise SearchFailed(f"search({mode!r}) returned doc id {result.doc_id!r} (rank {rank}), which is not a "
                               "document of the corpus: return the ids of Corpus.doc_ids", latency_ms)
        seen.setdefault(result.doc_id, []).append(rank)
    repeated = next(((doc_id, ranks) for doc_id, ranks in seen.items() if len(ranks) > 1), None)
    if repeated is not None:
        raise SearchFailed(f"search({mode!r}) returned doc id {repeated[0]!r} {_times(len(repeated[1]))} (ranks "
                           f"{_ranks(repeated[1])}): a ranking holds each document once", latency_ms)
    _check_scores(results, mode, fusion, latency_ms)
    _check_order(results, mode, latency_ms)
    if fused and fusion["method"] == "convex":
        _check_statistics(results, getattr(results, "statistics", {}), int(fusion["candidate_depth"]), latency_ms)
