"""What a comparison reads: each mode's aggregate and rows for one split, checked before any statistic.

The rows must be the file the aggregate names by digest, every mode must list the same queries in the same
order, and every row must match its schema; anything else is refused with the file and the fix.
"""

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.corpus.contract import artifact_dataset
from harness.errors import HarnessError, RefusedError
from harness.evaluation.measures.metrics import DEPTH
from harness.evaluation.measures.named import DEFAULT_NAMES, parse_measure
from harness.evaluation.receipts.artifacts import aggregate_name, named_dataset, output_dataset, rows_name
from harness.hashing import sha256_bytes
from harness.json_input import parse_document
from harness.schema_check import SchemaViolation, validate
from harness.typed_commands import harness_command

METRICS = ("ndcg_at_10", "recall_at_1", "recall_at_5", "recall_at_10", "mrr_at_10", "map_at_10",
           "success_at_1", "success_at_5", "success_at_10")
METRIC_NAMES = {DEFAULT_NAMES[key] for key in METRICS}  # the defaults as ir_measures writes them


class ComparisonInputError(HarnessError):
    """An artifact a comparison needs is missing or malformed."""


class ComparisonRefused(RefusedError):
    """The artifacts do not belong together, are not eligible, or the comparison exists already."""


@dataclass(frozen=True)
class ModeInput:
    mode: str
    aggregate_path: Path
    aggregate: dict[str, Any]
    aggregate_sha256: str
    rows_path: Path
    rows: list[dict[str, Any]]
    rows_sha256: str
    # the bytes read, once: what was parsed is what a snapshot for the validator holds
    aggregate_bytes: bytes
    rows_bytes: bytes

    def values(self, metric: str) -> list[float]:
        """Each row's value of a default metric, or of a measure its run chose by name (the row's `measures`)."""
        return [float(row["metrics"][metric] if metric in row["metrics"] else row["measures"][metric])
                for row in self.rows]

    @property
    def chosen(self) -> list[str]:
        """The measures the run chose by name (--measure)."""
        return list((self.aggregate.get("measures") or {}).get("names", []))

    @property
    def dataset(self) -> str:
        """The name the run's artifacts carry (scifact of scifact-hybrid-heldout.aggregate.json)."""
        dataset = named_dataset(self.aggregate_path.name)
        assert dataset is not None, self.aggregate_path  # load_input read it by that name
        return dataset

    @property
    def query_ids(self) -> list[str]:
        return [str(row["query_id"]) for row in self.rows]

    def record(self) -> dict[str, Any]:
        receipt = self.aggregate["receipt"]
        return {"mode": self.mode, "rows": self.rows_path.name, "rows_sha256": self.rows_sha256,
                "aggregate": self.aggregate_path.name, "aggregate_sha256": self.aggregate_sha256,
                "run_id": receipt["run"]["run_id"], "config_sha256": receipt["retrieval"]["config_sha256"]}


def _read(path: Path, what: str, fix: str) -> bytes:
    if not path.is_file():
        problem = "is a directory" if path.is_dir() else "does not exist"
        raise ComparisonInputError(f"{what} {path} {problem}; {fix}")
    return path.read_bytes()


def _rows(path: Path, data: bytes, mode: str, split: str) -> list[dict[str, Any]]:
    fix = f"rerun `{harness_command('run', '--split', split, '--mode', mode, '--replace')}` to write it again"
    if data and not data.endswith(b"\n"):
        raise ComparisonInputError(f"rows {path} do not end with a newline (a torn last row); {fix}")
    rows = []
    for number, line in enumerate(data.splitlines(), start=1):
        try:
            row = json.loads(line)
            validate(row, "query-row")
        except (ValueError, RecursionError, SchemaViolation) as exc:
            raise ComparisonInputError(f"rows {path}, line {number}: {str(exc)[:200]}; {fix}") from None
        if (row["mode"], row["split"]) != (mode, split):
            raise ComparisonRefused(f"rows {path}, line {number} belong to {row['mode']} {row['split']}, not {mode} "
                                    f"{split}; {fix}")
        rows.append(row)
    if not rows:
        raise ComparisonInputError(f"rows {path} hold no row; {fix}")
    return rows


def dataset_of(output_dir: Path, split: str) -> str:
    """The dataset whose runs `output_dir` holds (the name its artifacts carry); none is refused."""
    dataset = output_dataset(output_dir)
    if dataset is None:
        raise ComparisonInputError(f"{output_dir} holds no {split} aggregate; run `"
                                   f"{harness_command('run', '--split', split, '--output-dir', output_dir)}` first")
    return dataset


def load_input(output_dir: Path, mode: str, split: str) -> ModeInput:
    fix = f"run `{harness_command('run', '--split', split, '--mode', mode)}` into {output_dir} first"
    dataset = dataset_of(output_dir, split)
    path = output_dir / aggregate_name(dataset, mode, split)
    raw = _read(path, "aggregate", fix)
    aggregate = parse_document(raw, path, "aggregate", "aggregate", fix, ComparisonInputError)
    if (aggregate["mode"], aggregate["split"]) != (mode, split):
        raise ComparisonRefused(f"aggregate {path} is the receipt of {aggregate['mode']} {aggregate['split']}, not "
                                f"{mode} {split}; put each run's artifacts under their own names")
    receipt_dataset = artifact_dataset(aggregate["receipt"]["corpus"]["contract"]["name"])
    if receipt_dataset != dataset:
        raise ComparisonRefused(f"aggregate {path} is named for {dataset}, but its receipt is a run of "
                                f"{receipt_dataset}; use the artifacts a run wrote, unrenamed")
    if aggregate["per_query_path"] != rows_name(dataset, mode, split):
        raise ComparisonRefused(f"aggregate {path} names rows {aggregate['per_query_path']!r}, not "
                                f"{rows_name(dataset, mode, split)}; use the artifacts a run wrote, unrenamed")
    rows_path = output_dir / rows_name(dataset, mode, split)
    data = _read(rows_path, "rows", fix)
    digest = sha256_bytes(data)
    if digest != aggregate["per_query_sha256"]:
        raise ComparisonRefused(f"rows {rows_path} have sha256 {digest}, but the aggregate names "
                                f"{aggregate['per_query_sha256']}: they are not the rows of that receipt; restore the "
                                f"run's own rows, or rerun the mode with --replace")
    rows = _rows(rows_path, data, mode, split)
    if len(rows) != aggregate["row_count"]:
        raise ComparisonRefused(f"rows {rows_path} hold {len(rows)} rows, the aggregate counts "
                                f"{aggregate['row_count']}; restore the run's own rows")
    return ModeInput(mode, path, aggregate, sha256_bytes(raw), rows_path, rows, digest, raw, data)


def load_inputs(output_dir: Path, split: str, modes: Sequence[str]) -> list[ModeInput]:
    if not modes:
        raise ComparisonInputError(f"{output_dir} holds no {split} aggregate; run `"
                                   f"{harness_command('run', '--split', split, '--output-dir', output_dir)}` first")
    inputs = [load_input(output_dir, mode, split) for mode in modes]
    first = inputs[0]
    for other in inputs[1:]:
        if other.query_ids != first.query_ids:
            missing = sorted(set(first.query_ids) - set(other.query_ids))[:3]
            extra = sorted(set(other.query_ids) - set(first.query_ids))[:3]
            where = next((i for i, (x, y) in enumerate(zip(first.query_ids, other.query_ids, strict=False))
                          if x != y), min(len(first.query_ids), len(other.query_ids)))
            raise ComparisonRefused(
                f"{other.rows_path.name} and {first.rows_path.name} list different queries (first difference at "
                f"row {where + 1}; only in the first: {missing}, only in the second: {extra}): a paired comparison "
                "needs the same queries in the same order; rerun the modes of this split from one fixture")
    return inputs


def compared_metrics(inputs: Sequence[ModeInput], measures: Sequence[str], label: Callable[[ModeInput], str]
                     ) -> tuple[str, ...]:
    """The default metrics, then each measure chosen by name for the comparison (`compare --measure`), which every
    input's run must have chosen; `label` names an input in the refusal."""
    names = [str(parse_measure(name, max_cutoff=DEPTH)) for name in measures]
    repeated = sorted({name for name in names if names.count(name) > 1 or name in METRIC_NAMES})
    if repeated:
        raise ComparisonInputError(f"--measure {repeated[0]}: named twice, or a default metric, which every comparison "
                                   "compares already; name each other measure once")
    for name in names:
        lacking = [label(entry) for entry in inputs if name not in entry.chosen]
        if lacking:
            raise ComparisonInputError(f"--measure {name}: the run of {', '.join(lacking)} did not choose it, so its "
                                       f"rows hold no {name}: evaluate that split again with --measure {name} "
                                       "(--replace), or compare without it")
    return (*METRICS, *names)
