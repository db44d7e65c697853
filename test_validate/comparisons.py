"""Helpers for the comparison, report and export tests: comparisons of the clean tiny run, and an output directory
of tiny-corpus-shaped rows whose modes differ query by query (the clean run's modes all score alike)."""

import copy
import json
import math
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fixtures.archives import TINY_DATASET
from fixtures.paired_rows import ranked_rows
from harness.evaluation.comparison.artifact import CompareRequest, Judged, Judgement, compare, comparison_name
from harness.publish.report.report import write_report
from harness.publish.verdicts import validator_judgement
from harness.validator.core.report import Report
from harness.validator.pipeline import validate

from .support import MODES, CleanRun, Json, Row, RunCopy, rows_bytes, sha256_bytes, sha256_canonical, sha256_file
from .test_bundle import as_clean_checkout


def compared(copy: RunCopy, split: str = "heldout", judge: Judgement = validator_judgement,
             **request: Any) -> tuple[Path, Json]:
    """The copy's receipts say they ran from a clean HEAD; then `python -m harness compare` on `split`."""
    as_clean_checkout(copy)
    path, document, _ = compare(CompareRequest(copy.out, split, **request), judge)
    return path, document


def edit_comparison(path: Path, change: Any) -> Path:
    document = json.loads(path.read_text(encoding="utf-8"))
    change(document)
    path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    return path


def reseal_input(copy: RunCopy, comparison: Path, mode: str, split: str) -> None:
    """After editing a mode's rows or aggregate: the aggregate names the rows' digest, the comparison both digests."""
    aggregate = copy.aggregate(mode, split)
    aggregate["per_query_sha256"] = sha256_file(copy.rows_path(mode, split))
    copy.write_aggregate(mode, split, aggregate)

    def change(document: Json) -> None:
        entry = next(e for e in document["inputs"] if e["mode"] == mode)
        entry.update(rows_sha256=sha256_file(copy.rows_path(mode, split)),
                     aggregate_sha256=sha256_file(copy.aggregate_path(mode, split)))
    edit_comparison(comparison, change)


def _row(template: Row, source: Row, mode: str, split: str) -> Row:
    row = copy.deepcopy(template)
    lanes = template["results"][0]["lanes"] if template["results"] else {}
    results = [{"rank": rank, "doc_id": doc, "fact_id": rank, "score": float(20 - rank), "lanes": lanes}
               for rank, doc in enumerate(source["ranked_doc_ids"], start=1)]
    row.update(mode=mode, split=split, query_id=source["query_id"], qrels=source["qrels"],
               ranked_doc_ids=source["ranked_doc_ids"], results=results, metrics=source["metrics"], error=None)
    row["search_receipt"]["result_count"] = len(results)
    row.pop("depth_ranking", None)  # drawn rows carry no depth-100 ranking
    return row


def varied_output(copy: RunCopy, queries: int = 40, seed: int = 3, split: str = "calibration") -> dict[str, list[Row]]:
    """Replace the copy's `split` rows of every mode with `queries` rows whose rankings differ by mode, and reseal
    each aggregate (rows digest, count, metric means, selected-id digest). The validator refuses these receipts (the
    rows are not the store's rankings); their statistics, though, must recompute exactly."""
    drawn = ranked_rows(queries, seed, split)
    for mode in MODES:
        template = copy.rows(mode, split)[0]
        rows = [_row(template, source, mode, split) for source in drawn[mode]]
        data = rows_bytes(rows)
        copy.rows_path(mode, split).write_bytes(data)
        aggregate = copy.aggregate(mode, split)
        aggregate.update(per_query_sha256=sha256_bytes(data), row_count=len(rows))
        for key in ("recall_at_100", "ndcg_at_100", "depth_ranking"):
            aggregate["metrics"].pop(key, None)
        for key in rows[0]["metrics"]:
            aggregate["metrics"][key] = math.fsum(r["metrics"][key] for r in rows) / len(rows)
        aggregate["receipt"]["split"]["selected_ids_sha256"] = sha256_canonical([r["query_id"] for r in rows])
        copy.write_aggregate(mode, split, aggregate)
    return drawn


def taken_as_eligible(judged: Sequence[Judged]) -> list[tuple[bool, str]]:
    """A judge for tests whose inputs are eligible (the clean run, from a clean HEAD) or beside the point."""
    return [(True, "taken as eligible by the test") for _ in judged]


def comparison_path(copy: RunCopy, split: str) -> Path:
    return copy.out / comparison_name(TINY_DATASET, split)


@dataclass(frozen=True)
class Compared:
    """A copy of the clean run from a clean HEAD, its held-out comparison, and the validator's reports on the
    held-out aggregates (by sha256), made once per session so that each test validates only what it changed."""

    copy: RunCopy
    path: Path
    known: dict[str, Report]

    def fresh(self, tmp_path: Path) -> tuple[RunCopy, Path]:
        """A private copy of the output directory (receipts still name the first copy's freeze, which stays)."""
        out = tmp_path / "out"
        shutil.copytree(self.copy.out, out)
        scratch = tmp_path / "scratch"
        scratch.mkdir()
        return RunCopy(self.copy.clean, out, scratch), out / self.path.name


@dataclass(frozen=True)
class ValidatedReport:
    """The clean run's report, validated (held-out compared, calibration not), written once per session."""

    out: Path
    html: Path
    markdown: Path
    summary: dict[str, Any]


def validated_report_once(compared: Compared, root: Path) -> ValidatedReport:
    copy, _ = compared.fresh(root)
    html, markdown = root / "report.html", root / "report.md"
    summary = write_report(copy.out, html, markdown, validated=True, replace=False, known=compared.known)
    return ValidatedReport(copy.out, html, markdown, summary)


def compared_once(clean: CleanRun, root: Path) -> Compared:
    copy = RunCopy.make(clean, root)
    path, _ = compared(copy, judge=taken_as_eligible)
    known = {sha256_file(copy.aggregate_path(mode, "heldout")): validate(copy.aggregate_path(mode, "heldout"))
             for mode in MODES}
    assert all(report.eligible for report in known.values()), [r.verdict() for r in known.values()]
    return Compared(copy, path, known)
