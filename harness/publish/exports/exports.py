"""`python -m harness export`: TREC runs, original scores, qrels and per-query CSVs, written beside the results.

Every file is derived from rows whose digest is their aggregate's per_query_sha256 (the same reading a comparison
does); nothing existing is overwritten without --replace, and the files are written together: a failure while
writing them changes none.
"""

from collections.abc import Sequence
from pathlib import Path

from harness.atomic import write_all_atomic
from harness.errors import HarnessError, RefusedError
from harness.evaluation.comparison.experiment import judgement_disagreement
from harness.evaluation.comparison.inputs import ModeInput, load_inputs
from harness.evaluation.gates.split_modes import complete_splits, split_modes
from harness.publish.exports.per_query_csv import per_query_name, per_query_text
from harness.publish.exports.trec_export import qrels_name, qrels_text, run_name, run_text, scores_name, scores_text


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
    files = {qrels_name(split): qrels_text(inputs[0].rows),
             per_query_name(split): per_query_text([(entry.mode, entry.rows) for entry in inputs])}
    for entry in inputs:
        files[run_name(entry.mode, split)] = run_text(entry.rows, f"scifact-{entry.mode}-{split}")
        files[scores_name(entry.mode, split)] = scores_text(entry.rows)
    return files


def export(output_dir: Path, export_dir: Path, splits: Sequence[str] | None = None, *,
           replace: bool = False) -> list[Path]:
    chosen = ({split: split_modes(output_dir, split) for split in splits} if splits
              else complete_splits(output_dir))
    if not chosen:
        raise NothingToExport(f"{output_dir} holds no split with its modes' aggregates (every frozen mode, when "
                              "there is a freeze); run `python -m harness run --split calibration` (or heldout) "
                              "into it first")
    files: dict[str, str] = {}
    for split, modes in chosen.items():
        files.update(export_texts(split, load_inputs(output_dir, split, modes)))
    existing = sorted(name for name in files if (export_dir / name).exists())
    if existing and not replace:
        more = " ..." if len(existing) > 4 else ""
        raise ExportRefused(f"{export_dir} already holds {', '.join(existing[:4])}{more}; exports are never "
                            "overwritten silently: use --replace, or another --export-dir")
    written = {export_dir / name: text.encode("utf-8") for name, text in sorted(files.items())}
    write_all_atomic(written)
    return list(written)
