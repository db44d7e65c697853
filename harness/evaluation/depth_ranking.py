"""The ranking to depth 100: a diagnostic beside the top-10 claim, for Recall@100 and nDCG@100.

A system that keeps what its timed call scored (`RanksDeeper`, the built-in system) has each answered query's
ranking cut to depth 100 from that call's lanes, right after the call and outside its timing, so no query is
searched twice and no run holds more than one query's lanes. Any other system has each answered query searched once
more with top_k = 100 after every timed call of the run (and its contention snapshot), untimed. Either way the row
records that ranking (doc ids and scores) beside the claim. The claim is never
derived from it: the row's top-10 ranking, its search receipt and its latency are what they were. The first 10 of
the depth-100 list equal the top 10 when the system's ranking at a smaller top_k is a prefix of its ranking at a
larger one: the built-in system's always is (its lanes' candidate depth is its configuration's, whatever top_k asks,
and its tie rule is a total order); a system whose fusion or engine depends on top_k may differ, and the aggregate
counts the rows where it does (`depth_ranking.top_k_prefix_differs`, measures/aggregate.py).

A system that cannot answer top_k = 100 declares `{"depth_ranking": False}`: no depth-100 ranking is asked, its
rows carry none, and Recall@100 and nDCG@100 are absent (never zero). A depth search that fails is named in the
row's `depth_ranking.error` (the system's or the harness's) and counts as zero in the means; the claim's row and its
failure count stay as they were.
"""

from collections.abc import Callable, Sequence
from typing import Any

from harness.evaluation.measures.metrics import DEPTH, Conventions, depth_metrics
from harness.evaluation.measures.query_vectors import QueryVectors
from harness.systems.protocol import (
    Hit,
    SearchFailed,
    SearchOutcome,
    SearchStopped,
    SystemIdentity,
    SystemLost,
    SystemUnderTest,
)

NOT_ASKED = "the query failed, so no depth-100 ranking was asked"


def asked(identity: SystemIdentity) -> bool:
    """Whether the system answers top_k = 100 (it says so by not declaring `depth_ranking` False)."""
    return identity.declarations.get("depth_ranking", True) is not False


def _failure(exc: Exception, system: str) -> str:
    if isinstance(exc, SearchFailed):
        return f"system {system!r}: {exc.error}"
    return f"a fault of the harness: {type(exc).__name__}: {exc}; report it"


def _entry(hits: Sequence[Hit], error: str | None = None) -> dict[str, Any]:
    """A row's `depth_ranking`: the hits, or none and the error that says why."""
    return {"depth": DEPTH, "doc_ids": [hit.doc_id for hit in hits], "scores": [hit.score for hit in hits],
            "error": error}


Cut = Callable[[SearchOutcome], dict[str, Any]]


def lane_cut(system: SystemUnderTest) -> Cut | None:
    """How a timed call's lanes give its depth-100 entry, or None when the system does not keep them or answers no
    depth-100 ranking (it is then searched again after the run, or not at all). Read once per run: a system's
    identity hashes its source. The cut runs outside the timed call."""
    deepen = getattr(system, "deepen", None)  # RanksDeeper's one method, when the system has it
    if not callable(deepen):
        return None
    identity = system.identity()
    if not asked(identity):
        return None

    def cut(outcome: SearchOutcome) -> dict[str, Any]:
        try:
            hits: list[Hit] = deepen(outcome, DEPTH)
            return _entry(hits)
        except Exception as exc:  # a failed cut is named in the row like a failed depth search
            return _entry([], f"depth-100 ranking: {_failure(exc, identity.name)}")
    return cut


def depth_entry(system: SystemUnderTest, name: str, mode: str, query: dict[str, Any], vectors: QueryVectors | None,
                answered: bool) -> dict[str, Any]:
    """One query's depth-100 ranking, searched untimed; an empty one with the error that says why when none.
    `name` is the system's name, read once per run (a system's identity hashes its source)."""
    if not answered:
        return _entry([], NOT_ASKED)
    text = query["text"]
    try:
        outcome = system.search(mode, text, vectors(text) if vectors is not None else None, DEPTH)
    except SearchStopped as exc:
        raise exc.at(name, query["query_id"], "the depth-100 ranking") from exc
    except SystemLost:
        raise
    except Exception as exc:  # a diagnostic that failed: named in the row, zero in the means, the claim unchanged
        return _entry([], f"depth-100 ranking: {_failure(exc, name)}")
    return _entry(outcome.hits)


def add_depth_rankings(rows: Sequence[dict[str, Any]], queries: dict[str, dict[str, Any]], system: SystemUnderTest,
                       mode: str, vectors: QueryVectors | None, conventions: Conventions) -> None:
    """Every row gains its depth-100 ranking (searched now, after the timed calls of the run, unless its timed call's
    lanes gave it one) and the metrics of it, under the contract's declared conventions."""
    identity = system.identity()
    if not asked(identity):
        return
    for row in rows:
        entry = row.get("depth_ranking")
        if entry is None:
            entry = depth_entry(system, identity.name, mode, queries[row["query_id"]], vectors, row["error"] is None)
            row["depth_ranking"] = entry
        row["metrics"].update(depth_metrics(entry["doc_ids"], row["qrels"], conventions))
