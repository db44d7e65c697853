"""The report's leading tables read back and checked without the report's code: the headline (nDCG@10 and Recall@10
of every mode on every split, from the aggregates, the best of each split marked and nothing else marked), and the
published figures of other tools, each restated here from its source."""

import json
from pathlib import Path
from typing import Any, Protocol

from harness.publish.text.reference_scores import REFERENCES

from .support import artifact_in

BEST = "\u2605"
SPLIT_NAMES = {"held-out": "heldout", "all queries": "all", "calibration": "calibration"}
# Each figure as its source publishes it, restated here as a second witness to harness/publish/text/reference_scores.
PUBLISHED = {
    "MTEB: all-MiniLM-L6-v2, dense": 0.64508,  # MTEB's SciFact result for the model; `pytest -m parity` reproduces it
    "bm25s: BM25, its defaults": 0.687,  # bm25-benchmarks README, NDCG@10 table: Lucene, k1 1.5, b 0.75, SF 68.7
    "Pyserini: BM25, flat index": 0.6789,  # pyserini/2cr/beir.yaml, bm25-flat, scifact
    "Pyserini: BM25, multifield index": 0.6647,  # pyserini/2cr/beir.yaml, bm25-multifield, scifact
}


class Counting(Protocol):
    def cell(self, cell: str, expected: list[float | None]) -> None: ...

    def text(self, cell: str, expected: str) -> None: ...


def _aggregate(out: Path, mode: str, split: str) -> Any:
    return json.loads(artifact_in(out, f"-{mode}-{split}.aggregate.json").read_text(encoding="utf-8"))


def check_headline(body: list[list[str]], checker: Counting, out: Path, splits: list[str]) -> None:
    """Groups in the report's split order, one row per mode; a figure carries the mark exactly when it is its split's
    highest as shown (four decimals)."""
    groups: list[tuple[str, list[list[str]]]] = []
    for row in body:
        if len(row) == 1:
            groups.append((SPLIT_NAMES[row[0].split(":", 1)[0]], []))
        else:
            groups[-1][1].append(row)
    assert [split for split, _ in groups] == splits, (groups, splits)
    for split, rows in groups:
        for column, metric in ((1, "ndcg_at_10"), (2, "recall_at_10")):
            values = {row[0]: _aggregate(out, row[0], split)["metrics"][metric] for row in rows}
            best = max(f"{v:.4f}" for v in values.values())
            for row in rows:
                cell = row[column]
                checker.cell(cell, [values[row[0]]])
                assert cell.endswith(f" {BEST}") == (len(rows) > 1 and f"{values[row[0]]:.4f}" == best), (split, row)


def check_references(body: list[list[str]], checker: Counting) -> None:
    assert [row[0] for row in body] == list(PUBLISHED)
    for row, reference in zip(body, REFERENCES, strict=True):
        checker.cell(row[1], [PUBLISHED[row[0]]])
        checker.text(row[2], f"{reference.protocol}. Source: {reference.source}.")
