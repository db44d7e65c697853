"""A table of a text judged against the artifacts, by its layout: the header names each column's figure, the first
cell the mode (or the pair, or the metric), the heading (or an HTML table's id) the split. A layout this module does
not know is reported as not checked, never passed."""

import re
from collections.abc import Callable
from typing import Any

from .blocks import Block, Row
from .facts import Facts
from .figures import Tally, figures_of, plain
from .labels import LATENCY, NOT_FIGURES, PAIR_COLUMNS, SIGNIFICANCE_COLUMNS, metric_of, pair_of, split_of

BEST = "\u2605"
NOT_CHECKED = {"rank": "the hybrid lanes table (counts of each lane's results)",
               "split, mode": "the lane-by-lane verification words (read from the validator's reports, not figures)",
               "tool and method": "the published figures of other tools (not measured here)"}


def _figures(tally: Tally, row: Row, cell: str, what: str) -> list[str] | None:
    found = figures_of(cell)
    if found is None:
        tally.fail(row.line, f"{what}: {cell!r} is not a well-formed figure")
    return found


def _value(aggregate: dict[str, Any], column: str) -> tuple[bool, list[Any]]:
    """(a figure column, its expected values) of an aggregate for a column label."""
    metrics = aggregate["metrics"]
    if column == "queries":
        return True, [aggregate["row_count"]]
    if column == "failures":
        return True, [metrics["failures"]]
    if column in LATENCY:
        return True, [metrics["latency_ms"][LATENCY[column]]]
    key = metric_of(column)
    if key is None:
        return False, []
    chosen = (aggregate.get("measures") or {}).get("means", {})  # a measure the run chose by name, else no value
    return True, [metrics[key] if key in metrics else chosen.get(key)]


def _mode_rows(tally: Tally, table: Block, split: str | None, facts: Facts) -> None:
    for row in table.rows:
        mode = row.cells[0]
        aggregate = facts.aggregate(split, mode)
        if aggregate is None:
            tally.missing(row.line, f"the row of {mode} on {split}")
            continue
        for column, cell in zip(table.headers[1:], row.cells[1:], strict=False):
            figure, expected = _value(aggregate, column)
            if not figure:
                tally.skip(NOT_FIGURES.get(column, f"the column {column!r} of the table under {table.text or split}"))
                continue
            what = f"{mode} {split} {column}"
            shown = _figures(tally, row, cell, what)
            if shown is not None:
                tally.compare(row.line, what, shown, expected, facts.source(split, mode))


def _headline(tally: Tally, table: Block, split: str | None, facts: Facts) -> None:
    groups: list[tuple[str | None, list[Row]]] = []
    for row in table.rows:
        if row.group or len([c for c in row.cells if c]) == 1:
            split = split_of(row.cells[0])
            groups.append((split, []))
            counts = re.findall(r"(\d+) queries", row.cells[0])[:1]
            runs = [a for (s, _), a in facts.aggregates.items() if s == split]
            if not runs:
                tally.missing(row.line, f"the headline's {row.cells[0]!r}")
            else:
                tally.compare(row.line, f"the headline's {split} query count", counts, [runs[0]["row_count"]],
                              facts.source(split, runs[0]["mode"]))
        elif groups:
            groups[-1][1].append(row)
    for split, rows in groups:
        _mode_rows(tally, Block("table", table.line, "the headline", headers=table.headers, rows=rows), split, facts)
        for column in range(1, len(table.headers)):
            shown = [(figures_of(row.cells[column]) or [""])[0] for row in rows]  # by row: an HTML table's rows
            best = max((float(v) for v in shown if v), default=None)  # may share one line
            for row, value in zip(rows, shown, strict=True):
                marked = BEST in row.cells[column] or "best of its split" in row.cells[column]
                expected = len(rows) > 1 and best is not None and value != "" and float(value) == best
                tally.word(row.line, f"the headline's mark on {row.cells[0]} {split} {table.headers[column]}",
                           "best" if marked else "not marked", "best" if expected else "not marked",
                           "the figures of its split as shown")


def _metric_rows(tally: Tally, table: Block, split: str | None, facts: Facts) -> None:
    comparison = facts.modes.get(split or "")
    for row in table.rows:
        key = metric_of(row.cells[0])
        if key is None:
            tally.skip(f"the row {row.cells[0]!r} of the metrics table of {split}")
            continue
        for mode, cell in zip(table.headers[1:], row.cells[1:], strict=False):
            aggregate = facts.aggregate(split, mode)
            if aggregate is None:
                tally.missing(row.line, f"the {mode} column of the metrics table of {split}")
                continue
            chosen = (aggregate.get("measures") or {}).get("means", {})  # a measure chosen by name, or no value
            expected = [aggregate["metrics"][key] if key in aggregate["metrics"] else chosen.get(key)]
            stated = (comparison or {}).get("modes", {}).get(mode, {}).get(key)
            if stated is not None and expected[0] is not None:
                expected += [stated["ci_low"], stated["ci_high"]]
            shown = _figures(tally, row, cell, f"{mode} {split} {row.cells[0]}")
            if shown is not None:
                tally.compare(row.line, f"{mode} {split} {row.cells[0]}", shown, expected, facts.source(split, mode))


def stat_values(stats: dict[str, Any], fields: tuple[str, ...]) -> list[Any]:
    return [stats[f]["p_value"] if f in ("randomization", "t_test") else stats[f] for f in fields]


def _pair_rows(tally: Tally, table: Block, split: str | None, facts: Facts) -> None:
    for row in table.rows:
        label, metric = row.cells[0], None
        if "metric" in table.headers:
            metric = metric_of(row.cells[table.headers.index("metric")])
        elif ", " in label:
            label, named = label.rsplit(", ", 1)
            metric = metric_of(named)
        pair = pair_of(label)
        found = None if pair is None else facts.pair(split, *pair)
        if found is None:
            tally.missing(row.line, f"the pair {row.cells[0]!r} on {split}")
            continue
        comparison, source = found
        stats = comparison["metrics"].get(metric or "ndcg_at_10")
        if stats is None:
            tally.missing(row.line, f"the pair {row.cells[0]!r} on {split}, metric {metric}")
            continue
        for column, cell in zip(table.headers[1:], row.cells[1:], strict=False):
            what = f"{row.cells[0]} on {split}: {column}"
            if column in PAIR_COLUMNS:
                shown = _figures(tally, row, cell, what)
                if shown is not None:
                    tally.compare(row.line, what, shown, stat_values(stats, PAIR_COLUMNS[column]), source)
            elif column in SIGNIFICANCE_COLUMNS:
                called = "significant" if stats["significant_after_holm"] else "not significant"
                tally.word(row.line, what, cell, called, source)
            elif column == "status":
                tally.word(row.line, what, cell.split(",")[0], comparison["status"], source)
            elif column != "metric":
                tally.skip(f"the column {column!r} of the differences on {split}")


def _curves(tally: Tally, table: Block, split: str | None, facts: Facts) -> None:
    for row in table.rows:
        k = int(row.cells[0]) if row.cells[0].isdigit() else 0
        for column, cell in zip(table.headers[1:], row.cells[1:], strict=False):
            kind, _, mode = column.partition(" ")
            rows = facts.rows.get((split or "", mode))
            if rows is None or kind not in ("Success@k", "Recall@k") or not k:
                tally.missing(row.line, f"{column} at k = {row.cells[0]} on {split}")
                continue
            shown = _figures(tally, row, cell, f"{column} at k = {k} on {split}")
            if shown is not None:
                tally.compare(row.line, f"{column} at k = {k} on {split}", shown, [at_k(rows, k, kind)],
                              f"the rows of {facts.source(split, mode)}")


def at_k(rows: list[dict[str, Any]], k: int, kind: str) -> float:
    """Success@k or Recall@k over every row, from its ranked ids and qrels (a row with no relevant document: 0)."""
    total = 0.0
    for row in rows:
        relevant = {doc for doc, grade in row["qrels"].items() if grade > 0}
        found = len(relevant.intersection(row["ranked_doc_ids"][:k]))
        if relevant:
            total += (1.0 if found else 0.0) if kind == "Success@k" else found / len(relevant)
    return total / len(rows) if rows else 0.0


LAYOUTS: dict[str, Callable[[Tally, Block, str | None, Facts], None]] = {
    "mode": _mode_rows, "split and mode": _headline, "metric": _metric_rows, "difference": _pair_rows,
    "difference, metric": _pair_rows, "k": _curves}


def check_table(tally: Tally, table: Block, split: str | None, facts: Facts) -> None:
    if table.ident and split_of(table.ident.rsplit("-", 1)[-1]):
        split = split_of(table.ident.rsplit("-", 1)[-1])
    first = plain(table.headers[0]) if table.headers else ""
    if first in NOT_CHECKED:
        tally.skip(NOT_CHECKED[first])
    elif first in LAYOUTS:
        LAYOUTS[first](tally, table, split, facts)
    else:
        tally.skip(f"a table of unknown layout at line {table.line} ({' | '.join(table.headers)[:80]})")
