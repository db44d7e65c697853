"""What the report shows, read from an output directory (or a bundle's artifacts) and derived from the rows.

Per split with its modes (every frozen one, when a freeze is beside them): the aggregates and rows (digest-checked),
the comparison artifact when there is one, Success@k and Recall@k for k = 1..10 from each row's ranked ids and
qrels, the latencies, and for hybrid where each top-10 document came from (lexical lane only, dense lane only,
both), from the lanes evidence.
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.evaluation.comparison.artifact import comparison_name
from harness.evaluation.comparison.inputs import ModeInput, dataset_of, load_inputs
from harness.evaluation.gates.split_modes import FreezeFile, splits_with_modes
from harness.hashing import sha256_bytes
from harness.json_input import parse_document
from harness.publish.report.systems_files import SystemsFile, load_systems
from harness.publish.text.heldout_looks import looks_statement
from harness.publish.text.report_text import SPLIT_ORDER
from harness.publish.text.trials_words import trials_statement
from harness.typed_commands import harness_command

CUTOFFS = tuple(range(1, 11))
LANE_KINDS = ("lexical only", "dense only", "both", "neither")
TOP_DEPTH = 10
NO_COMPARISON = "no comparison artifact for"  # how a note on a split without its comparison begins


class ReportInputError(HarnessError):
    """The output directory holds nothing a report could show, or an artifact it needs is malformed."""


@dataclass(frozen=True)
class SplitData:
    split: str
    inputs: list[ModeInput]
    comparison: dict[str, Any] | None
    comparison_path: Path | None
    comparison_bytes: bytes | None = None  # as read, once: what the report shows and the validator checks

    @property
    def comparison_sha256(self) -> str | None:
        return None if self.comparison_bytes is None else sha256_bytes(self.comparison_bytes)

    @property
    def modes(self) -> list[str]:
        return [entry.mode for entry in self.inputs]

    def aggregate(self, mode: str) -> dict[str, Any]:
        return next(entry.aggregate for entry in self.inputs if entry.mode == mode)

    def rows(self, mode: str) -> list[dict[str, Any]]:
        return next(entry.rows for entry in self.inputs if entry.mode == mode)

    def candidate_depth(self) -> int:
        """How many of each lane's best documents the hybrid fuses: the candidate depth its system declares."""
        return int(self.aggregate("hybrid")["receipt"]["system"]["declarations"]["fusion"]["candidate_depth"])


@dataclass(frozen=True)
class ReportData:
    splits: list[SplitData]
    validated: bool
    freeze_file: FreezeFile | None = None
    notes: list[str] = field(default_factory=list)
    # aggregate sha256 -> lane (or "fusion") -> how the validator verified it, in words
    verification: dict[str, dict[str, str]] = field(default_factory=dict)
    heldout_looks: str | None = None  # how many configurations saw the held-out split (publish.heldout_looks)
    trials: str | None = None  # how many configurations the frozen one was chosen from (publish.text.trials_words)
    systems: list[SystemsFile] = field(default_factory=list)  # comparisons between systems beside the results

    @property
    def freeze(self) -> dict[str, Any] | None:
        return None if self.freeze_file is None else self.freeze_file.record

    @property
    def aggregates(self) -> list[dict[str, Any]]:
        return [entry.aggregate for split in self.splits for entry in split.inputs]

    @property
    def receipt(self) -> dict[str, Any]:
        receipt: dict[str, Any] = self.splits[0].inputs[0].aggregate["receipt"]
        return receipt


def load_report_data(directory: Path, *, validated: bool, freeze: FreezeFile | None) -> ReportData:
    """The splits of `directory` with their modes (the frozen ones of `freeze`, the freeze record beside them,
    already read), every file read once."""
    splits = splits_with_modes(directory, None if freeze is None else freeze.modes)
    if not splits:
        raise ReportInputError(f"{directory} holds no split with its modes' aggregates; run the evaluation "
                               f"(`make calibration`, or `{harness_command('run')}`) into it first")
    loaded = []
    for split in sorted(splits, key=SPLIT_ORDER.index):
        path = directory / comparison_name(dataset_of(directory, split), split)
        fix = f"rerun `{harness_command('compare', '--split', split, '--replace')}`"
        raw = path.read_bytes() if path.is_file() else None
        comparison = (parse_document(raw, path, "comparison", "comparison", fix, ReportInputError)
                      if raw is not None else None)
        loaded.append(SplitData(split, load_inputs(directory, split, splits[split]), comparison,
                                path if raw is not None else None, raw))
    notes = [f"{NO_COMPARISON} {s.split}: run `python -m harness compare --output-dir {directory} --split "
             f"{s.split}`" for s in loaded if s.comparison is None and len(s.modes) > 1]
    looks = looks_statement([entry.aggregate for split in loaded for entry in split.inputs])
    return ReportData(loaded, validated, freeze, notes, heldout_looks=looks,
                      trials=trials_statement(None if freeze is None else freeze.record),
                      systems=load_systems(directory, [s.split for s in loaded]))


def _relevant(row: dict[str, Any]) -> set[str]:
    return {doc for doc, grade in row["qrels"].items() if grade > 0}


def curves(rows: list[dict[str, Any]]) -> dict[str, list[float]]:
    """Mean Success@k and Recall@k over every row, k = 1..10 (a row with no relevant document scores 0)."""
    success, recall = [0.0] * len(CUTOFFS), [0.0] * len(CUTOFFS)
    for row in rows:
        relevant = _relevant(row)
        if not relevant:
            continue
        for i, k in enumerate(CUTOFFS):
            found = len(relevant.intersection(row["ranked_doc_ids"][:k]))
            success[i] += 1.0 if found else 0.0
            recall[i] += found / len(relevant)
    return {"success": [s / len(rows) for s in success], "recall": [r / len(rows) for r in recall]}


def lane_kind(result: dict[str, Any], depth: int) -> str:
    """Which lanes ranked this hybrid result within their first `depth` (the candidate depth: the fusion's
    candidate lists)."""
    lanes = result["lanes"]
    lexical = (lanes.get("lexical", {}).get("rank") or depth + 1) <= depth
    dense = (lanes.get("dense", {}).get("rank") or depth + 1) <= depth
    return "both" if lexical and dense else "lexical only" if lexical else "dense only" if dense else "neither"


def lane_counts(rows: list[dict[str, Any]], depth: int) -> dict[int, dict[str, int]]:
    """Rank position (1..10) -> how many hybrid results there each lane had ranked within `depth`."""
    counts = {rank: dict.fromkeys(LANE_KINDS, 0) for rank in CUTOFFS}
    for row in rows:
        for result in row["results"][:10]:
            counts[result["rank"]][lane_kind(result, depth)] += 1
    return counts


def latencies(rows: list[dict[str, Any]]) -> list[float]:
    return sorted(float(row["latency_ms"]) for row in rows)


def differences(split: SplitData, a: str, b: str, metric: str = "ndcg_at_10") -> list[float]:
    """Per-query a - b, sorted from a's largest win to its largest loss."""
    pairs = zip(split.rows(a), split.rows(b), strict=True)
    return sorted((x["metrics"][metric] - y["metrics"][metric] for x, y in pairs), reverse=True)
