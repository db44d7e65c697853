"""Measures chosen by name for a run (the aggregate's `measures`, each row's `measures`), recomputed by the validator's
own code (retrieval/named_measures.py) under its pins' conventions, never the receipt's: every row carries the chosen
names and no other; each value is the measure of the ranking its cutoff reaches (the row's ranking up to the contract's
top_k, its depth-100 ranking beyond), 0 for a failed query or depth search (`rows.measures`); each mean is over every
row (`aggregate.measures`)."""

import math
from typing import Any

from ..core.context import Context
from ..core.report import Report
from ..retrieval import ir_metrics
from ..retrieval.named_measures import NamedMeasure, NameRefused, compute, parse

Row = dict[str, Any]
NONE = "no measure was chosen by name beyond the default metrics"


def chosen_value(measure: NamedMeasure, row: Row, top_k: int, conventions: ir_metrics.Conventions) -> float:
    """A measure chosen by name, of the ranking its cutoff reaches: the row's up to top_k, its depth-100 ranking
    beyond; 0 for a failed query or depth search."""
    if row["error"] is not None:
        return 0.0
    assert measure.k is not None
    if measure.k <= top_k:
        return compute(measure, list(row["ranked_doc_ids"]), dict(row["qrels"]), conventions)
    entry = row.get("depth_ranking")
    if entry is None or entry["error"] is not None:
        return 0.0
    return compute(measure, list(entry["doc_ids"]), dict(row["qrels"]), conventions)


def _row_problem(row: Row, measures: list[NamedMeasure], top_k: int, conventions: ir_metrics.Conventions
                 ) -> str | None:
    stated = row.get("measures", {})
    names = [m.name for m in measures]
    if sorted(stated) != sorted(names):
        return f"query {row['query_id']}: the row states measures {sorted(stated)}, the run chose {names}"
    for measure in measures:
        try:
            expected = chosen_value(measure, row, top_k, conventions)
        except ValueError as exc:
            return f"query {row['query_id']}: {measure.name}: {exc}"
        if not ir_metrics.close(expected, stated[measure.name]):
            return f"query {row['query_id']}: {measure.name} is {expected!r}, the row states {stated[measure.name]!r}"
    return None


def check_chosen(ctx: Context, report: Report, conventions: ir_metrics.Conventions) -> None:
    block, rows = ctx.aggregate.get("measures"), ctx.rows
    if block is None:
        carrying = sum("measures" in row for row in rows)
        report.expect("rows.measures", carrying == 0, NONE, "no row with chosen measures", f"{carrying} rows")
        return
    top_k = int(ctx.receipt["retrieval"]["top_k"])
    depth = ir_metrics.DEPTH if any("depth_ranking" in row for row in rows) else top_k
    try:
        measures = [parse(name, max_cutoff=depth) for name in block["names"]]
    except NameRefused as exc:
        report.fail("rows.measures", "the measures chosen are named as ir_measures writes them", "a measure", str(exc))
        return
    canonical = [m.name for m in measures]
    problem = (f"the names {block['names']} are not as ir_measures writes them: {canonical}"
               if canonical != block["names"] else None)
    problem = problem or next((p for row in rows if (p := _row_problem(row, measures, top_k, conventions))), None)
    report.expect("rows.measures", problem is None, f"every row's {', '.join(canonical)} recomputed from its ranking "
                  f"(to top_k {top_k}) or its depth-100 ranking and its judgements, by the validator's own code",
                  "the recomputed values", problem)
    means = {m.name: math.fsum(float(row.get("measures", {}).get(m.name, 0.0)) for row in rows) / len(rows)
             for m in measures}
    wrong = {name: (mean, block["means"].get(name)) for name, mean in means.items()
             if not ir_metrics.close(mean, block["means"].get(name))}
    report.expect("aggregate.measures", not wrong and set(block["means"]) == set(means),
                  "each chosen measure's mean is over every row", means, block["means"])
