"""Reading the HTML report back (stdlib html.parser) and checking every number in its tables against the artifacts,
recomputed here from the aggregates, the comparisons and the rows, without the report's own code."""

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

from .headline_check import check_headline, check_references
from .support import MODES, artifact_in

LABELS = {"nDCG@10": "ndcg_at_10", "Recall@1": "recall_at_1", "Recall@5": "recall_at_5", "Recall@10": "recall_at_10",
          "MRR@10": "mrr_at_10", "MAP@10": "map_at_10", "Success@1": "success_at_1", "Success@5": "success_at_5",
          "Success@10": "success_at_10"}
NUMBER = re.compile(r"[+-]?\d+(?:\.\d+)?(?:e[+-]?\d+)?")


class Tables(HTMLParser):
    """id -> (header cells, body rows of cell texts); also every attribute that could load something."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, tuple[list[str], list[list[str]]]] = {}
        self.references: list[tuple[str, str, str]] = []
        self.tags: set[str] = set()
        self.rows: list[list[str]] = []  # every body row of every table, in order
        self._table: str | None = None
        self._cell: list[str] | None = None
        self._row: list[str] = []
        self._in_head = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        values = dict(attrs)
        self.references += [(tag, k, v or "") for k, v in attrs if k in ("src", "href", "xlink:href", "action")]
        if tag == "table":
            self._table = values.get("id") or ""
            self.tables[self._table] = ([], [])
        elif tag == "thead":
            self._in_head = True
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._table is not None:
            self._cell = []
        elif tag == "br" and self._cell is not None:
            self._cell.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self._table is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._table is not None:
            headers, rows = self.tables[self._table]
            (headers.extend(self._row) if self._in_head else rows.append(self._row))
            if not self._in_head:
                self.rows.append(self._row)
        elif tag == "thead":
            self._in_head = False
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def parse(path: Path) -> Tables:
    parser = Tables()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def render_markdown(text: str) -> str:
    """CommonMark with GFM tables and strikethrough, as markdown-it-py renders it (HTML allowed, as GitHub's
    renderer allows comments and some tags: what a document shows only if it is escaped)."""
    return str(MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(text))


def parse_markdown(path: Path) -> Tables:
    """The Markdown file rendered, then read back like the HTML report."""
    parser = Tables()
    parser.feed(render_markdown(path.read_text(encoding="utf-8")))
    return parser


def numbers(cell: str) -> list[tuple[float, float]]:
    """(value, half a unit of its last shown digit) for each number written in the cell."""
    found = []
    for token in NUMBER.findall(cell.replace("\u2212", "-")):
        mantissa, _, exponent = token.partition("e")
        places = len(mantissa.partition(".")[2])
        found.append((float(token), 0.5 * 10.0 ** (int(exponent or 0) - places) + 1e-12))
    return found


class Checker:
    """Counts every number it is shown and every number it checks; both counts must end equal."""

    def __init__(self) -> None:
        self.seen = 0
        self.checked = 0

    def cell(self, cell: str, expected: list[float | None]) -> None:
        shown = numbers(cell)
        self.seen += len(shown)
        wanted = [e for e in expected if e is not None]
        assert len(shown) == len(wanted), (cell, expected)
        assert cell.count("undefined") == expected.count(None), (cell, expected)
        for (value, half_unit), target in zip(shown, wanted, strict=True):
            assert abs(value - target) <= half_unit, (cell, value, target)
            self.checked += 1

    def text(self, cell: str, expected: str) -> None:
        """A cell of words, equal to what it must say; the numbers in it count as shown and checked."""
        assert cell == expected, (cell, expected)
        self.seen += len(numbers(cell))
        self.checked += len(numbers(expected))


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def curves(rows: list[dict[str, Any]]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"success": [], "recall": []}
    for k in range(1, 11):
        hits = [len({d for d, g in r["qrels"].items() if g > 0} & set(r["ranked_doc_ids"][:k])) for r in rows]
        sizes = [len([d for d, g in r["qrels"].items() if g > 0]) for r in rows]
        out["success"].append(sum(1.0 for h in hits if h) / len(rows))
        out["recall"].append(sum(h / s for h, s in zip(hits, sizes, strict=True) if s) / len(rows))
    return out


def lanes(rows: list[dict[str, Any]], depth: int) -> dict[int, dict[str, int]]:
    counts = {rank: {"lexical only": 0, "dense only": 0, "both": 0, "neither": 0} for rank in range(1, 11)}
    for row in rows:
        for result in row["results"][:10]:
            lexical = (result["lanes"].get("lexical", {}).get("rank") or 10**9) <= depth
            dense = (result["lanes"].get("dense", {}).get("rank") or 10**9) <= depth
            kind = {(True, True): "both", (True, False): "lexical only", (False, True): "dense only"}.get(
                (lexical, dense), "neither")
            counts[result["rank"]][kind] += 1
    return counts


def mode_columns(headers: list[str]) -> list[str]:
    return [next(m for m in MODES if header.endswith(m)) for header in headers]


def _rows(out: Path, mode: str, split: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in artifact_in(out, f"-{mode}-{split}.jsonl").read_bytes().splitlines()]


def _comparison_tables(tables: Tables, checker: Checker, comparison: dict[str, Any], split: str) -> None:
    _, body = tables.tables[f"comparison-{split}"]
    assert len(body) == len(comparison["comparisons"])
    for row, entry in zip(body, comparison["comparisons"], strict=True):
        assert row[0] == f"{entry['a']} \u2212 {entry['b']}"
        s = entry["metrics"]["ndcg_at_10"]
        expected_cells = ([s["mean_difference"]], [s["ci_low"], s["ci_high"]], [s["randomization"]["p_value"]],
                          [s["t_test"]["p_value"]], [s["holm_p_value"]], [s["effect_size"]],
                          [s["wins"], s["ties"], s["losses"]])
        for cell, expected in zip(row[1:8], expected_cells, strict=True):
            checker.cell(cell, list(expected))
        assert row[8] == ("significant" if s["significant_after_holm"] else "not significant")
    _, body = tables.tables[f"comparison-all-{split}"]
    expected_rows = [(entry, metric) for entry in comparison["comparisons"] for metric in LABELS.values()]
    assert len(body) == len(expected_rows)
    for row, (entry, metric) in zip(body, expected_rows, strict=True):
        label = next(k for k, v in LABELS.items() if v == metric)
        assert row[0] == f"{entry['a']} \u2212 {entry['b']}, {label}"
        s = entry["metrics"][metric]
        for cell, expected in zip(row[1:], ([s["mean_difference"]], [s["ci_low"], s["ci_high"]],
                                            [s["randomization"]["p_value"]], [s["holm_p_value"]],
                                            [s["wins"], s["ties"], s["losses"]]), strict=True):
            checker.cell(cell, list(expected))


def check_split(tables: Tables, checker: Checker, out: Path, split: str) -> None:
    aggregates = {m: load(artifact_in(out, f"-{m}-{split}.aggregate.json")) for m in MODES}
    rows = {m: _rows(out, m, split) for m in MODES}
    compared = [p for p in out.glob(f"*-comparison-{split}.json")]
    comparison = load(compared[0]) if compared else None
    headers, body = tables.tables[f"metrics-{split}"]
    assert headers[1:] == list(MODES) and [LABELS[row[0]] for row in body] == list(LABELS.values())
    for row in body:
        metric = LABELS[row[0]]
        for mode, cell in zip(MODES, row[1:], strict=True):
            stated = comparison["modes"][mode][metric] if comparison else None
            checker.cell(cell, [aggregates[mode]["metrics"][metric], *(
                [stated["ci_low"], stated["ci_high"]] if stated else [])])
    _, body = tables.tables[f"latency-{split}"]
    assert [row[0] for row in body] == list(MODES)
    for row in body:
        a = aggregates[row[0]]
        latency = a["metrics"]["latency_ms"]
        assert row[1] == contention_flag(a), (row, a["receipt"].get("latency_measurement"))
        for cell, value in zip(row[2:], [a["row_count"], latency["p50"], latency["p95"], latency["max"],
                                         latency["mean"], a["metrics"]["failures"]], strict=True):
            checker.cell(cell, [value])
    if comparison is not None:
        _comparison_tables(tables, checker, comparison, split)
    headers, body = tables.tables[f"curves-{split}"]
    series = {m: curves(rows[m]) for m in MODES}
    assert [row[0] for row in body] == [str(k) for k in range(1, 11)]
    for k, row in enumerate(body):
        expected = [series[m]["success"][k] for m in mode_columns(headers[1:4])]
        expected += [series[m]["recall"][k] for m in mode_columns(headers[4:7])]
        for cell, value in zip(row[1:], expected, strict=True):
            checker.cell(cell, [value])
    _, body = tables.tables[f"lanes-{split}"]
    depth = rows["hybrid"][0]["search_receipt"]["lanes"]["fusion"]["candidate_depth"]  # as the rows state it
    candidates, top = lanes(rows["hybrid"], depth), lanes(rows["hybrid"], 10)
    kinds = ["lexical only", "dense only", "both", "neither"]
    for row, rank in zip(body, [*range(1, 11), None], strict=True):
        assert row[0] == (str(rank) if rank else "all ranks")
        ranks = [rank] if rank else list(range(1, 11))
        values = [sum(candidates[r][k] for r in ranks) for k in kinds[:3]] + [sum(top[r][k] for r in ranks)
                                                                              for k in kinds]
        for cell, value in zip(row[1:], values, strict=True):
            checker.cell(cell, [value])


def contention_flag(aggregate: dict[str, Any]) -> str:
    """What the latency table must say of a run: quiet only when its receipt records that no rule fired and every
    measurement was read."""
    measured = aggregate["receipt"].get("latency_measurement")
    if measured is None:
        return "\u26a0 not recorded"
    return {True: "\u26a0 contended", None: "\u26a0 contention unknown", False: "quiet"}[measured["contended"]]


def check_report(html: Path, out: Path) -> list[str]:
    """Every number of every table checked; returns the splits the report shows."""
    tables = parse(html)
    splits = [name.removeprefix("metrics-") for name in tables.tables if name.startswith("metrics-")]
    assert next(iter(tables.tables)) == "headline", list(tables.tables)  # the answer comes first
    checker = Checker()
    check_headline(tables.tables["headline"][1], checker, out, splits)
    if "reference" in tables.tables:  # SciFact's published figures, shown on a SciFact run only
        check_references(tables.tables["reference"][1], checker)
    for split in splits:
        check_split(tables, checker, out, split)
    shown = sum(len(numbers(cell)) for _, body in tables.tables.values() for row in body for cell in row[1:])
    assert checker.seen == checker.checked == shown, (checker.seen, checker.checked, shown)
    assert shown > 0
    return splits
