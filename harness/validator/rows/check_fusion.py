"""rows.fusion: every fused score of a hybrid run recomputed, by the validator's own code, from the row's lane evidence
and the fusion the system declares (retrieval/fusion.py), and the fused order checked.

Each answered row's search receipt states the declared fusion (method, k or weight and normalisation, candidate
depth); a convex one also each lane's statistics over its candidates, well formed and holding every lane score the
row reports. Every result's lane ranks lie within the candidate depth, its fused score is the recomputation (exactly
in float64; within two float32 ulps for an RRF declared summed in float32) and is the result's score, and results go
by fused score descending, then doc id. The first problem is named by query, rank, doc id and field.
"""

from collections.abc import Mapping
from typing import Any

from ..core.report import Report
from ..retrieval.fusion import LANE_ORDER, convex, declared_fields, rrf, statistics_problem

Row = dict[str, Any]
NAME = "rows.fusion"


def _same(recomputed: float, reported: float, float32: bool) -> bool:
    """Exact in float64; an engine that sums reciprocal ranks in float32 (declared) within two float32 ulps, which
    covers the rounding of each reciprocal and of their sum."""
    return recomputed == reported if not float32 else abs(recomputed - reported) <= 2.0 ** -23 * abs(recomputed)


def _recomputed(fusion: Mapping[str, Any], lanes: Mapping[str, Any], statistics: Mapping[str, Any]) -> float:
    if fusion["method"] == "rrf":
        return rrf({lane: lanes[lane]["rank"] for lane in LANE_ORDER}, int(fusion["k"]))
    return convex({lane: lanes[lane]["score"] for lane in LANE_ORDER}, statistics, float(fusion["weight"]),
                  str(fusion["normalisation"]))


def _receipt_problem(row: Row, fusion: Mapping[str, Any]) -> tuple[str, Any, Any] | None:
    recorded = row["search_receipt"]["lanes"]["fusion"]
    for key, value in declared_fields(fusion).items():
        if recorded.get(key) != value:
            return f"search_receipt.lanes.fusion.{key} is not the declared fusion's", value, recorded.get(key)
    for lane in LANE_ORDER if fusion["method"] == "convex" else ():
        stats = recorded["statistics"][lane]
        problem = statistics_problem(stats, int(fusion["candidate_depth"]))
        if problem is not None:
            return f"search_receipt.lanes.fusion.statistics.{lane}: {problem}", "well-formed statistics", stats
    return None


def _lane_problem(lanes: Mapping[str, Any], fusion: Mapping[str, Any], statistics: Mapping[str, Any]
                  ) -> tuple[str, Any, Any] | None:
    depth = int(fusion["candidate_depth"])
    for lane in LANE_ORDER:
        rank, score = lanes[lane]["rank"], lanes[lane]["score"]
        if rank is not None and not 1 <= rank <= depth:
            return f"lanes.{lane}.rank is not within the candidate depth", f"1..{depth}", rank
        if rank is None or fusion["method"] != "convex":
            continue
        stats = statistics[lane]
        if score is None or rank > stats["candidates"] or not stats["min"] <= score <= stats["max"]:
            return (f"lanes.{lane} is not among the lane's candidates the statistics describe",
                    f"rank 1..{stats['candidates']}, score {stats['min']!r}..{stats['max']!r}", (rank, score))
    return None


def _result_problem(result: Row, fusion: Mapping[str, Any], statistics: Mapping[str, Any]
                    ) -> tuple[str, Any, Any] | None:
    lanes = result["lanes"]
    problem = _lane_problem(lanes, fusion, statistics)
    if problem is not None:
        return problem
    stated = lanes["fusion"]
    if stated.get("method") != fusion["method"] or (fusion["method"] == "rrf" and stated.get("k") != fusion["k"]):
        return "lanes.fusion is not the declared fusion's", declared_fields(fusion), stated
    recomputed, reported = _recomputed(fusion, lanes, statistics), stated["fused_score"]
    if not _same(recomputed, reported, fusion.get("score_dtype") == "float32"):
        return (f"lanes.fusion.fused_score is not the {fusion['method']} fusion of its lanes", recomputed, reported)
    if reported != result["score"]:
        return "score is not its lanes.fusion.fused_score", reported, result["score"]
    return None


def _row_problem(row: Row, fusion: Mapping[str, Any]) -> tuple[str, Any, Any] | None:
    where = f"query {row['query_id']}"
    if row["error"] is not None:
        return None
    problem = _receipt_problem(row, fusion)
    if problem is not None:
        return f"{where}: {problem[0]}", problem[1], problem[2]
    statistics = row["search_receipt"]["lanes"]["fusion"].get("statistics", {})
    for rank, result in enumerate(row["results"], start=1):
        problem = _result_problem(result, fusion, statistics)
        if problem is not None:
            return f"{where}, rank {rank} ({result['doc_id']}): results[{rank - 1}].{problem[0]}", *problem[1:]
    keys = [(-result["score"], result["doc_id"]) for result in row["results"]]
    if keys != sorted(keys):
        return f"{where}: results are not by fused score descending, then doc id", sorted(keys), keys
    return None


def check_fusion(rows: list[Row], fusion: Mapping[str, Any] | None, report: Report) -> None:
    """rows.fusion for a hybrid run, under the fusion the system declares (None: it declares none)."""
    if not fusion or fusion.get("method") not in ("rrf", "convex"):
        report.fail(NAME, "the system declares no fusion (rrf: k and candidate depth; convex: weight, normalisation "
                    "and candidate depth) to recompute its fused scores from", "declarations.fusion", fusion)
        return
    what = (f"fused scores recomputed from lane ranks (rrf, k {fusion['k']}"
            if fusion["method"] == "rrf" else
            f"fused scores recomputed from lane scores and each lane's statistics (convex, weight {fusion['weight']}, "
            f"{fusion['normalisation']}") + f", candidate depth {fusion['candidate_depth']}) and fused order"
    problem = next((found for row in rows if (found := _row_problem(row, fusion)) is not None), None)
    if problem is None:
        report.ok(NAME, f"{what} ({len(rows)} rows)")
    else:
        report.fail(NAME, f"{what}: {problem[0]}", problem[1], problem[2])
