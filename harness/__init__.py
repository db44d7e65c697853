"""Receipt-bearing retrieval evaluation on BEIR SciFact.

For tuning, two functions (each imports what it needs when called, so `import harness` and `scifact-harness --help`
load no corpus, numpy or statistics code): `evaluate`, a run evaluated on measures by name (nDCG@10, P@5, ...,
as ir_measures names them), and `calibration`, a dataset's calibration split (queries, judgements, corpus).
"""

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.evaluation.measures.metrics import Conventions
    from harness.evaluation.tuning.api import Evaluation, Qrels, Run
    from harness.evaluation.tuning.calibration import Calibration

__all__ = ["calibration", "evaluate"]


def evaluate(qrels: "Qrels", run: "Run", measures: Iterable[str] | str | None = None, *,
             conventions: "Conventions | Mapping[str, str] | None" = None) -> "Evaluation":
    """Evaluate `run` ({qid: {doc_id: score}} or {qid: [doc_id, ...]}) against `qrels` ({qid: {doc_id: grade}}) on
    `measures` by name (default: the harness's nine), as trec_eval -c does: over the judged queries, a judged query
    the run does not rank scoring 0. See harness/evaluation/tuning/api.py and docs/evaluating.md."""
    from harness.evaluation.tuning.api import evaluate as evaluated

    return evaluated(qrels, run, measures, conventions=conventions)


def calibration(dataset: str | Path = "scifact", archive: str | Path | None = None, *, split: str = "calibration",
                work_dir: str | Path | None = None) -> "Calibration":
    """The calibration split of `dataset` (a shipped dataset's name, or a contract file of a collection of one's own):
    its queries, judgements and corpus, from the verified archive. The held-out split is refused. See
    harness/evaluation/tuning/calibration.py."""
    from harness.evaluation.tuning.calibration import calibration as loaded

    return loaded(dataset, archive, split=split, work_dir=work_dir)
