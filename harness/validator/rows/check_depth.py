"""The rows' depth-100 rankings (a diagnostic beside the top-10 claim), their metrics and the aggregate's account.

Every row carries one, or none does (a system that declares `depth_ranking` false, or a run written before they
were recorded). Each is at most 100 unique documents with as many scores, best first with ties by doc id, empty
with an error on a failed query; Recall@100 and nDCG@100 are recomputed from it with the validator's own code, and
the aggregate's means, failed depth searches and rows whose depth-100 list does not begin with their top-k ranking
from the rows. The rankings themselves are replayed with the lanes (replay/check_depth_replay.py).
"""

import math
from typing import Any

from ..core.context import Context
from ..core.modes import in_order, tie_rule
from ..core.report import Report
from ..retrieval import ir_metrics

Row = dict[str, Any]


def _shape(row: Row, rule: str) -> str | None:
    entry, where = row["depth_ranking"], f"query {row['query_id']}"
    doc_ids, scores = entry["doc_ids"], entry["scores"]
    if entry["depth"] != ir_metrics.DEPTH or len(doc_ids) > ir_metrics.DEPTH:
        return f"{where}: depth {entry['depth']} with {len(doc_ids)} documents; the depth is {ir_metrics.DEPTH}"
    if len(scores) != len(doc_ids) or len(set(doc_ids)) != len(doc_ids):
        return f"{where}: {len(doc_ids)} doc ids ({len(set(doc_ids))} unique) and {len(scores)} scores"
    if (row["error"] is not None or entry["error"] is not None) and (doc_ids or entry["error"] is None):
        return f"{where}: a failed query or depth search ranks nothing and says why; found {len(doc_ids)} documents"
    pairs = list(zip(scores, doc_ids, strict=True))
    rank = next((i for i in range(1, len(pairs)) if not in_order(pairs[i - 1:i + 1], rule)), None)
    if rank is not None:
        return (f"{where}, depth rank {rank + 1}: {doc_ids[rank]} (score {scores[rank]!r}) after {doc_ids[rank - 1]} "
                f"(score {scores[rank - 1]!r}); scores descend, ties by doc id {rule}")
    return None


def _metrics(row: Row, conventions: ir_metrics.Conventions) -> str | None:
    try:
        expected = ir_metrics.compute_depth(row["depth_ranking"]["doc_ids"], row["qrels"], conventions)
    except ValueError as exc:
        return f"query {row['query_id']}: {exc}"
    found = {key: row["metrics"].get(key) for key in ir_metrics.DEPTH_KEYS}
    if all(ir_metrics.close(expected[key], found[key]) for key in expected):
        return None
    return f"query {row['query_id']}: the depth-100 ranking gives {expected}, the row states {found}"


def check_depth_rows(ctx: Context, report: Report, conventions: ir_metrics.Conventions) -> None:
    """The rows' depth-100 rankings and their metrics, under the pins' metric conventions."""
    rows = ctx.rows
    carrying = sum("depth_ranking" in row for row in rows)
    declined = ctx.receipt["system"]["declarations"].get("depth_ranking") is False
    if carrying == 0:
        report.ok("rows.depth_ranking", "no row carries a depth-100 ranking" + (
            " (the system declares it answers no top_k beyond the contract's)" if declined else
            " (a run written before they were recorded)"))
        return
    if declined or carrying != len(rows):
        report.fail("rows.depth_ranking", "every row carries a depth-100 ranking, or none does (none when the "
                    "system declares depth_ranking false)", "all or none" if not declined else "none",
                    f"{carrying} of {len(rows)} rows")
        return
    rule = tie_rule(ctx.mode)
    shape = next((problem for row in rows if (problem := _shape(row, rule)) is not None), None)
    report.expect("rows.depth_ranking", shape is None, f"every row's depth-100 ranking: at most "
                  f"{ir_metrics.DEPTH} unique documents with their scores, best first with ties by doc id, empty "
                  f"with an error on a failed query ({len(rows)} rows)", "a well-formed ranking", shape)
    wrong = next((problem for row in rows if (problem := _metrics(row, conventions)) is not None), None)
    report.expect("rows.depth_metrics", wrong is None, "Recall@100 and nDCG@100 of every row recomputed from its "
                  "depth-100 ranking and qrels", "the recomputed metrics", wrong)


def depth_account(rows: list[Row], top_k: int) -> dict[str, Any]:
    """The aggregate's depth_ranking block, recomputed from the rows."""
    answered = [row for row in rows if row["error"] is None]
    return {"depth": ir_metrics.DEPTH,
            "failures": sum(row["depth_ranking"]["error"] is not None for row in answered),
            "top_k_prefix_differs": sum(row["depth_ranking"]["error"] is None
                                        and row["depth_ranking"]["doc_ids"][:top_k] != row["ranked_doc_ids"]
                                        for row in answered)}


def check_depth_aggregate(ctx: Context, report: Report) -> None:
    """The aggregate's Recall@100 and nDCG@100 means and its depth_ranking block, from the rows; none of them when
    the rows carry no depth-100 rankings."""
    metrics, rows = ctx.aggregate["metrics"], ctx.rows
    stated = {key: metrics.get(key) for key in (*ir_metrics.DEPTH_KEYS, "depth_ranking")}
    carrying = sum("depth_ranking" in row for row in rows)
    if 0 < carrying < len(rows):
        report.fail("aggregate.depth", "the depth-100 means need every row's depth-100 ranking", len(rows), carrying)
        return
    if not carrying:
        report.expect("aggregate.depth", all(value is None for value in stated.values()), "no depth-100 metrics "
                      "or account without depth-100 rankings in the rows", None, stated)
        return
    expected: dict[str, Any] = {key: math.fsum(row["metrics"][key] for row in rows) / len(rows)
                                for key in ir_metrics.DEPTH_KEYS}
    expected["depth_ranking"] = depth_account(rows, ctx.receipt["retrieval"]["top_k"])
    same = all(ir_metrics.close(expected[key], stated[key]) for key in ir_metrics.DEPTH_KEYS) \
        and expected["depth_ranking"] == stated["depth_ranking"]
    report.expect("aggregate.depth", same, "Recall@100 and nDCG@100 are the means over every row (failures as "
                  "zero); failed depth searches and depth-100 lists not beginning with the top-k ranking counted",
                  expected, stated)
