"""Per-row checks: rankings, metrics, search receipts, exactness and fusion evidence."""

from collections.abc import Callable
from typing import Any

from ..core.context import Context
from ..core.declared import DENSE_EXACT, is_builtin, replay_parameters
from ..core.digests import sha256_canonical
from ..core.modes import fused, has_lane, in_order, tie_rule
from ..core.report import Report
from ..core.schemas import violation
from ..retrieval import ir_metrics
from .check_depth import check_depth_rows
from .check_fusion import check_fusion

Row = dict[str, Any]
EXACT_BACKENDS = {"numpy-exact-inner-product"}


def _first_problem(rows: list[Row], probe: Callable[[Row], tuple[Any, Any] | None]) -> tuple[str, Any, Any] | None:
    """Run `probe` on each row; it returns (expected, found) on a problem. Report the first one."""
    for number, row in enumerate(rows, start=1):
        problem = probe(row)
        if problem is not None:
            where = str(row.get("query_id")) if isinstance(row, dict) else f"(line {number}, not a JSON object)"
            return where, problem[0], problem[1]
    return None


def _each(report: Report, name: str, rows: list[Row], probe: Callable[[Row], tuple[Any, Any] | None],
          detail: str) -> None:
    problem = _first_problem(rows, probe)
    if problem is None:
        report.ok(name, f"{detail} ({len(rows)} rows)")
    else:
        report.fail(name, f"{detail}: query {problem[0]}", problem[1], problem[2])


def _schema(row: Row) -> tuple[Any, Any] | None:
    found = violation(row, "query-row")
    return None if found is None else ("a row matching query-row.schema.json", found)


def _identity(ctx: Context) -> Callable[[Row], tuple[Any, Any] | None]:
    def probe(row: Row) -> tuple[Any, Any] | None:
        got = (row.get("schema"), row.get("mode"), row.get("split"))
        want = ("semantic-memory-scifact-query-v1", ctx.mode, ctx.split)
        return None if got == want else (want, got)
    return probe


def _results(top_k: int) -> Callable[[Row], tuple[Any, Any] | None]:
    def probe(row: Row) -> tuple[Any, Any] | None:
        results, ranked = row["results"], row["ranked_doc_ids"]
        if [r["doc_id"] for r in results] != ranked:
            return ranked, [r["doc_id"] for r in results]
        if [r["rank"] for r in results] != list(range(1, len(results) + 1)):
            return "contiguous ranks from 1", [r["rank"] for r in results]
        if len(set(ranked)) != len(ranked):
            return "unique doc ids", ranked
        if len(ranked) > top_k:
            return f"at most {top_k} results", len(ranked)
        if row["error"] is not None and ranked:
            return "an empty ranking on a failed query", ranked
        return None
    return probe


def _metrics(conventions: ir_metrics.Conventions) -> Callable[[Row], tuple[Any, Any] | None]:
    def probe(row: Row) -> tuple[Any, Any] | None:
        try:
            expected = ir_metrics.compute(row["ranked_doc_ids"], row["qrels"], conventions)
        except ValueError as exc:
            return "qrels whose metrics can be computed", str(exc)
        found = {key: value for key, value in row["metrics"].items() if key not in ir_metrics.DEPTH_KEYS}
        if set(found) != set(expected) or not all(ir_metrics.close(expected[k], found[k]) for k in expected):
            return expected, found  # Recall@100 and nDCG@100 are the depth-100 ranking's (rows.depth_metrics)
        return None
    return probe


def _score_order(rule: str) -> Callable[[Row], tuple[Any, Any] | None]:
    def probe(row: Row) -> tuple[Any, Any] | None:
        pairs = [(r["score"], r["doc_id"]) for r in row["results"]]
        return None if in_order(pairs, rule) else (f"score descending, ties by doc_id {rule}", pairs)
    return probe


def _receipt_digest(ctx: Context) -> Callable[[Row], tuple[Any, Any] | None]:
    config_sha = ctx.receipt["retrieval"]["config_sha256"]
    store_sha = ctx.receipt["store"]["store_sha256"]

    def probe(row: Row) -> tuple[Any, Any] | None:
        receipt = row["search_receipt"]
        if sha256_canonical(receipt) != row["search_receipt_sha256"]:
            return row["search_receipt_sha256"], sha256_canonical(receipt)
        fields = (receipt.get("request_id"), receipt.get("mode"), receipt.get("query_sha256"),
                  receipt.get("result_count"))
        want = (row["request_id"], ctx.mode, row["query_sha256"], len(row["results"]))
        if fields != want:
            return want, fields
        if row["error"] is None:
            results = sha256_canonical([[r["doc_id"], r["fact_id"], r["score"]] for r in row["results"]])
            bound = (receipt.get("results_sha256"), receipt.get("config_sha256"), receipt.get("store_sha256"))
            if bound != (results, config_sha, store_sha):
                return (results, config_sha, store_sha), bound
        return None
    return probe


def _request_ids(ctx: Context, report: Report) -> None:
    run_id = ctx.receipt["run"]["run_id"]
    ids = [row["request_id"] for row in ctx.rows]
    expected = [f"{run_id}/{row['query_id']}" for row in ctx.rows]
    report.expect("rows.request_ids", ids == expected and len(set(ids)) == len(ids),
                  "request ids are unique and follow <run_id>/<query_id>", expected[:3], ids[:3])


def _exactness(document_count: int, backends: set[str]) -> Callable[[Row], tuple[Any, Any] | None]:
    def probe(row: Row) -> tuple[Any, Any] | None:
        if row["error"] is not None:
            return None
        dense = row["search_receipt"].get("lanes", {}).get("dense", {})
        found = (dense.get("backend") in backends, dense.get("exact"), dense.get("candidates_scored"))
        want = (True, True, document_count)
        return None if found == want else (want, found)
    return probe


def exact_backends(ctx: Context) -> set[str]:
    """The built-in system's exact backends; a system of its own is exact only by declaring it (its engine then
    scores every document, and the replay holds it to that)."""
    if is_builtin(ctx):
        return set(EXACT_BACKENDS)
    system = ctx.receipt["system"]
    return {system["engine"]["name"]} if system["declarations"].get("dense") == DENSE_EXACT else set()


def check_row_schemas(ctx: Context, report: Report) -> bool:
    before = len(report.failed)
    _each(report, "rows.schema", ctx.rows, _schema, "every row matches the row schema")
    return len(report.failed) == before


def note_failures(rows: list[Row], report: Report) -> None:
    """Whose failures the failed rows are, as each row records it (the run's statement: who failed cannot be
    recomputed; that each failed row ranks nothing and scores zero is checked)."""
    failed = [row for row in rows if row["error"] is not None]
    if failed:
        by = {who: sum(row.get("failed_by") == who for row in failed) for who in ("system", "harness")}
        report.notes["failures"] = {"count": len(failed), "rows": len(rows), **by,
                                    "unstated": len(failed) - sum(by.values()),
                                    "first": {"query_id": failed[0]["query_id"], "error": failed[0]["error"]}}


def check_rows(ctx: Context, report: Report, conventions: ir_metrics.Conventions) -> None:
    """`conventions`: the metric conventions of the validator's own pins (rows/measures.py)."""
    rows, parameters = ctx.rows, replay_parameters(ctx)
    note_failures(rows, report)
    _each(report, "rows.identity", rows, _identity(ctx), "schema id, mode and split of every row")
    _each(report, "rows.results", rows, _results(parameters["top_k"]),
          "results agree with ranked ids; unique ids, contiguous ranks, at most top_k")
    _each(report, "rows.metrics", rows, _metrics(conventions), f"per-query metrics recomputed from ranking and qrels "
          f"(nDCG gain {conventions.ndcg_gain!r}, MAP over {conventions.map_denominator!r})")
    _each(report, "rows.search_receipts", rows, _receipt_digest(ctx),
          "search receipt digests recomputed; request, mode, query, results, config and store bound")
    _request_ids(ctx, report)
    check_depth_rows(ctx, report, conventions)
    document_count = ctx.receipt["store"]["document_count"]
    if has_lane(ctx.mode, "dense"):
        _each(report, "rows.exact_backend", rows, _exactness(document_count, exact_backends(ctx)),
              f"exact dense backend scored every one of {document_count} documents")
    if fused(ctx.mode):
        check_fusion(rows, parameters["fusion"], report)
    else:
        rule = tie_rule(ctx.mode)
        _each(report, "rows.order", rows, _score_order(rule), f"scores descending, ties by doc_id {rule}")
