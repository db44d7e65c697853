"""`python -m harness export`: TREC runs (and depth-100 runs where the rows carry them), original scores, qrels and
per-query CSVs, ranx JSON runs and qrels, MTEB result files, summary.csv and summary.json, and a LaTeX table, written
beside the results.

Every file is derived from rows whose digest is their aggregate's per_query_sha256 (the same reading a comparison
does); nothing existing is overwritten without --replace, and the files are written together: a failure while
writing them changes none.
"""

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.atomic import write_all_atomic
from harness.errors import HarnessError, RefusedError
from harness.evaluation.comparison.experiment import judgement_disagreement
from harness.evaluation.comparison.inputs import ModeInput, load_inputs
from harness.evaluation.gates.split_modes import complete_splits, split_modes
from harness.publish.exports.latex_table import latex_name, latex_text
from harness.publish.exports.mteb_result import mteb_document, mteb_name
from harness.publish.exports.per_query_csv import per_query_name, per_query_text
from harness.publish.exports.ranx_json import (
    ranx_depth_run_name,
    ranx_depth_run_text,
    ranx_qrels_name,
    ranx_qrels_text,
    ranx_run_name,
    ranx_run_text,
)
from harness.publish.exports.summary_table import (
    Judge,
    split_comparison,
    summary_rows,
    summary_texts,
    verdict_of_comparison,
)
from harness.publish.exports.trec_export import (
    depth_run_name,
    depth_run_text,
    qrels_name,
    qrels_text,
    run_name,
    run_text,
    scores_name,
    scores_text,
)
from harness.typed_commands import harness_command


class ExportRefused(RefusedError):
    """Export files exist already, or the runs of a split do not share their judgements."""


class NothingToExport(HarnessError):
    """The output directory holds no split with its modes' aggregates."""


def export_texts(split: str, inputs: Sequence[ModeInput]) -> dict[str, str]:
    """File name -> content for one split; its one qrels file only when every mode's rows carry the same
    judgements for every query."""
    disagreement = judgement_disagreement(inputs)
    if disagreement is not None:
        raise ExportRefused(f"the {split} runs do not share their judgements, so no qrels file can stand for them: "
                            f"{disagreement}; export runs of one fixture (rerun the modes that differ)")
    dataset = inputs[0].dataset
    files = {qrels_name(dataset, split): qrels_text(inputs[0].rows),
             ranx_qrels_name(dataset, split): ranx_qrels_text(inputs[0].rows),
             per_query_name(dataset, split): per_query_text([(entry.mode, entry.rows) for entry in inputs])}
    for entry in inputs:
        tag = f"{dataset}-{entry.mode}-{split}"
        files[run_name(dataset, entry.mode, split)] = run_text(entry.rows, tag)
        files[scores_name(dataset, entry.mode, split)] = scores_text(entry.rows)
        files[ranx_run_name(dataset, entry.mode, split)] = ranx_run_text(entry.rows)
        files[mteb_name(dataset, entry.mode, split)] = json.dumps(mteb_document(entry), ensure_ascii=False,
                                                                  indent=1) + "\n"
        if all("depth_ranking" in row for row in entry.rows):
            files[depth_run_name(dataset, entry.mode, split)] = depth_run_text(entry.rows, tag)
            files[ranx_depth_run_name(dataset, entry.mode, split)] = ranx_depth_run_text(entry.rows)
    return files


def all_texts(runs: Mapping[str, Sequence[ModeInput]], comparisons: Mapping[str, dict[str, Any] | None],
              judge: Judge) -> dict[str, str]:
    """Every export file of every split in `runs`, with summary.csv, summary.json and the LaTeX table over them all;
    `comparisons` holds each split's comparison (None without one), `judge` says each run's verdict."""
    files: dict[str, str] = {}
    for split, inputs in runs.items():
        files.update(export_texts(split, inputs))
    files.update(summary_texts(summary_rows(runs, comparisons, judge)))
    files[latex_name(next(iter(runs.values()))[0].dataset)] = latex_text(runs)
    return files


def export(output_dir: Path, export_dir: Path, splits: Sequence[str] | None = None, *,
           replace: bool = False) -> list[Path]:
    chosen = ({split: split_modes(output_dir, split) for split in splits} if splits
              else complete_splits(output_dir))
    if not chosen:
        raise NothingToExport(f"{output_dir} holds no split with its modes' aggregates (every frozen mode, when "
                              f"there is a freeze); run `{harness_command('run', '--split', 'calibration')}` (or "
                              "heldout) into it first")
    runs = {split: load_inputs(output_dir, split, modes) for split, modes in chosen.items()}
    comparisons = {split: split_comparison(output_dir, split, inputs) for split, inputs in runs.items()}
    files = all_texts(runs, comparisons, verdict_of_comparison)
    existing = sorted(name for name in files if (export_dir / name).exists())
    if existing and not replace:
        more = " ..." if len(existing) > 4 else ""
        raise ExportRefused(f"{export_dir} already holds {', '.join(existing[:4])}{more}; exports are never "
                            "overwritten silently: use --replace, or another --export-dir")
    written = {export_dir / name: text.encode("utf-8") for name, text in sorted(files.items())}
    write_all_atomic(written)
    return list(written)
