"""The exports' result figures: `summary.csv` and `summary.json` (a row per mode and split, each metric, its
interval, the depth-100 metrics, latency, failures, the query count, the aggregate's digest) at the full precision
they are written, and the LaTeX headline table (`exports/*.tex`) at the precision it shows."""

import csv
import io
import json
import re
from typing import Any

from .blocks import Block, Row
from .facts import Facts
from .figures import Tally
from .labels import LONG

INTERVALS = tuple(LONG)
DEPTH = ("recall_at_100", "ndcg_at_100")
ATTESTED_HERE = ("system", "system_version", "mode", "split", "ir_datasets_id", "profile", "verdict", "verdict_by",
                 "fixture_sha256", "config_sha256", "store_sha256", "rows_sha256", "ci_confidence")


def _expected(facts: Facts, split: str, mode: str) -> dict[str, Any]:
    aggregate = facts.aggregates[(split, mode)]
    metrics = aggregate["metrics"]
    comparison = facts.modes.get(split)
    modes = comparison["modes"].get(mode) if comparison is not None else None
    values: dict[str, Any] = {"query_count": aggregate["row_count"], "failures": metrics["failures"],
                              "latency_p50_ms": metrics["latency_ms"]["p50"],
                              "latency_p95_ms": metrics["latency_ms"]["p95"]}
    for key in INTERVALS:
        values[key] = metrics[key]
        values[f"{key}_ci_low"] = modes[key]["ci_low"] if modes else None
        values[f"{key}_ci_high"] = modes[key]["ci_high"] if modes else None
    values.update({key: metrics.get(key) for key in DEPTH})
    return values


def _same(shown: Any, expected: Any) -> bool:
    if shown is None or expected is None:
        return shown is None and expected is None
    return not isinstance(shown, bool) and isinstance(shown, int | float) and float(shown) == float(expected)


def _row(tally: Tally, line: int, row: dict[str, Any], facts: Facts) -> None:
    split, mode = str(row.get("split")), str(row.get("mode"))
    if (split, mode) not in facts.aggregates:
        tally.missing(line, f"the row of {mode} {split}")
        return
    source = facts.source(split, mode)
    for key, expected in _expected(facts, split, mode).items():
        tally.checked += 1
        if not _same(row.get(key), expected):
            tally.fail(line, f"{mode} {split} {key} is {row.get(key)!r}; {source} holds {expected!r}")
    tally.word(line, f"{mode} {split} aggregate_sha256", str(row.get("aggregate_sha256")),
               facts.digests[(split, mode)], f"the sha256 of {source}")
    for key in row:
        if key not in ATTESTED_HERE and key != "aggregate_sha256" and key not in _expected(facts, split, mode):
            tally.skip(f"the column {key!r}")
    tally.skip("the identifying columns and digests (system, profile, fixture, configuration, store, rows), the "
               "verdict and who gave it")


def _number(text: str, line: int, tally: Tally) -> Any:
    if text == "":
        return None
    try:
        return int(text) if re.fullmatch(r"-?\d+", text) else float(text)
    except ValueError:
        tally.fail(line, f"{text!r} is not a well-formed figure")
        return text


def check_summary_csv(tally: Tally, text: str, facts: Facts) -> None:
    reader = csv.DictReader(io.StringIO(text))
    for line, raw in enumerate(reader, start=2):
        row = {key: raw[key] if key in ATTESTED_HERE or key == "aggregate_sha256" else _number(raw[key] or "", line,
                                                                                               tally)
               for key in raw if key is not None}
        _row(tally, line, row, facts)


def check_summary_json(tally: Tally, text: str, facts: Facts) -> None:
    try:
        document = json.loads(text)
        rows = document["rows"]
    except (ValueError, KeyError, TypeError):
        tally.fail(1, "not a summary document (JSON with its rows): fetch the bundle again")
        return
    lines = [number for number, line in enumerate(text.splitlines(), start=1) if line.strip() == "{"][1:]
    for index, row in enumerate(rows):
        _row(tally, lines[index] if index < len(lines) else 1, row if isinstance(row, dict) else {}, facts)


def latex_block(text: str) -> Block | None:
    """The tabular between \\toprule and \\bottomrule as a table: its header row and its rows (a \\midrule between
    splits skipped)."""
    lines = text.splitlines()
    try:
        top = next(i for i, line in enumerate(lines) if line.strip() == r"\toprule")
        bottom = next(i for i, line in enumerate(lines) if line.strip() == r"\bottomrule")
    except StopIteration:
        return None

    def cells(line: str) -> list[str]:
        return [re.sub(r"\\([_&%$#{}])", r"\1", c.strip()) for c in line.strip().removesuffix(r"\\").split(" & ")]

    body = [(i + 1, line) for i, line in enumerate(lines[top + 1:bottom], start=top + 1) if line.strip() != r"\midrule"]
    if not body:
        return None
    return Block("table", body[0][0], "the LaTeX headline", headers=cells(body[0][1]),
                 rows=[Row(number, cells(line)) for number, line in body[1:]])
