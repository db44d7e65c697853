"""Edits a forger makes to the runs of a comparison between systems, each followed by the reseal a careful forger
adds: the rows' digest in the aggregate (forger.py), then the whole comparison built again from the runs as they now
are (systems_comparison_builder.py), so that only the check under test can object."""

import json
from collections.abc import Callable
from pathlib import Path

from harness.evaluation.measures.metrics import query_metrics
from harness.hashing import sha256_canonical

from . import forger
from .support import Json, Row, RunCopy, sha256_file
from .systems_compared import SystemsCopy

SPLIT = "heldout"
OTHER_DIGEST = "sha256:" + "5" * 64


def edit_document(path: Path, change: Callable[[Json], object]) -> Path:
    document = json.loads(path.read_text(encoding="utf-8"))
    change(document)
    path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    return path


def reseal_digests(copy: SystemsCopy, name: str, mode: str) -> Path:
    """After editing an arm's files: the comparison's digests of them follow, nothing else (a lazy forger)."""
    run = copy.run(name)

    def change(document: Json) -> None:
        entry = next(e for e in document["inputs"] if e["label"] == f"{name}/{mode}")
        entry.update(rows_sha256=sha256_file(run.rows_path(mode, SPLIT)),
                     aggregate_sha256=sha256_file(run.aggregate_path(mode, SPLIT)))
    return edit_document(copy.path, change)


def _reversible(rows: list[Row]) -> Row:
    """A row whose metrics its ranking reversed would change."""
    def metrics(ranking: list[str], qrels: dict[str, int]) -> dict[str, float]:
        return query_metrics(ranking, qrels, forger.MEASURES)
    return next(row for row in rows if len(row["results"]) > 1
                and metrics(row["ranked_doc_ids"][::-1], row["qrels"]) != metrics(row["ranked_doc_ids"], row["qrels"]))


def ranking_reversed(run: RunCopy, mode: str, *, restate_metrics: bool) -> None:
    """A row's results reversed (scores, ranks, ids and search receipt resealed); its metrics restated from the new
    ranking or left as they were; the rows' digest, count and means resealed in the aggregate."""
    rows = run.rows(mode, SPLIT)
    row = _reversible(rows)
    stated = row["metrics"]
    scores = [result["score"] for result in row["results"]]
    row["results"] = [dict(result, score=score) for result, score in zip(row["results"][::-1], scores, strict=True)]
    forger.reseal_row(row)
    if not restate_metrics:
        row["metrics"] = stated
    forger.write_forged(run, mode, SPLIT, rows)


def judgement_added(run: RunCopy, mode: str) -> None:
    """A query judged with one more relevant document in this arm's rows only, its metrics restated."""
    rows = run.rows(mode, SPLIT)
    qrels = rows[0]["qrels"]
    qrels[next(f"d{i:02d}" for i in range(1, 11) if f"d{i:02d}" not in qrels)] = 1
    forger.reseal_row(rows[0])
    forger.write_forged(run, mode, SPLIT, rows)


def freeze_edited(run: RunCopy, change: Callable[[Json], object], *, reseal: bool) -> None:
    """The run's freeze record changed after its held-out runs; its own digest recomputed when `reseal`."""
    record = json.loads(run.freeze_path.read_text(encoding="utf-8"))
    change(record)
    if reseal:
        record["freeze_sha256"] = sha256_canonical({k: v for k, v in record.items() if k != "freeze_sha256"})
    run.freeze_path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def receipts(run: RunCopy, change: Callable[[Json], object]) -> None:
    """Every held-out receipt of the run changed."""
    for mode in json.loads(run.freeze_path.read_text(encoding="utf-8"))["modes"]:
        run.edit_receipt(mode, SPLIT, change)
