"""`pytest -m compare` in this repository, beside the suite's own comparison tests (harness/suite/test_compare.py,
which write each split's comparison, or reproduce the one there byte for byte, and have the validator check it): after
the three modes of a split exist in the output directory, its comparison computed in memory (with the procedure of the
comparison file when there is one), its statistics against scipy on the real rows, and the TREC export evaluated by
pytrec_eval and ir_measures. Computed in memory, it needs no ELIGIBLE receipt: a dirty work tree is checked all the
same. A split whose receipts are not there yet is skipped, unless --scifact-require-receipts (CI) makes that a
failure.
"""

import json
import math
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np
import pytest
import scipy.stats

from harness.corpus.contract import DEFAULT_DATASET
from harness.evaluation.comparison import paired_statistics as stats
from harness.evaluation.comparison.artifact import (
    Procedure,
    comparison_document,
    comparison_name,
)
from harness.evaluation.comparison.inputs import load_inputs
from harness.evaluation.receipts.artifacts import aggregate_name, output_dataset
from harness.modes import SEARCHED as MODES
from harness.publish.exports.exports import export_texts
from test_validate.trec_check import mean_gap, read_qrels, read_run, with_ir_measures, with_pytrec_eval, worst_gap

SOURCE_CHECKS = {"source.git", "source.clean", "source.harness"}


def _dataset(output_dir: Path) -> str:
    """The dataset the output directory's runs are of (SciFact's names while it holds none)."""
    return output_dataset(output_dir) or DEFAULT_DATASET


def _present(output_dir: Path, split: str, required: bool) -> None:
    """A split not evaluated yet is skipped; with --scifact-require-receipts (CI, after every split ran) it fails."""
    missing = [name for name in (aggregate_name(_dataset(output_dir), mode, split) for mode in MODES)
               if not (output_dir / name).is_file()]
    if missing and required:
        pytest.fail(f"--scifact-require-receipts: {output_dir} lacks {', '.join(missing)}; run the {split} evaluation "
                    "into it before the comparison", pytrace=False)
    if missing:
        pytest.skip(f"the {split} receipts of all three modes are not in {output_dir} yet")


def _document(output_dir: Path, split: str) -> dict[str, Any]:
    """The split's comparison computed in memory, with the procedure of the comparison file when there is one."""
    target = output_dir / comparison_name(_dataset(output_dir), split)
    stated = json.loads(target.read_bytes())["procedure"] if target.is_file() else None
    procedure = Procedure() if stated is None else Procedure(stated["seed"], stated["bootstrap_resamples"],
                                                             stated["permutations"])
    return comparison_document(load_inputs(output_dir, split, MODES), split, baseline=None, procedure=procedure,
                               verdicts=None)


def _check_against_scipy(document: dict[str, Any], output_dir: Path, split: str) -> None:
    inputs = {entry.mode: entry for entry in load_inputs(output_dir, split, MODES)}
    for comparison in document["comparisons"]:
        for metric in document["metrics"]:
            a, b = inputs[comparison["a"]].values(metric), inputs[comparison["b"]].values(metric)
            d = [x - y for x, y in zip(a, b, strict=True)]
            stated = comparison["metrics"][metric]
            if np.std(d) > 0:
                reference = scipy.stats.ttest_rel(a, b)
                assert abs(stated["t_test"]["p_value"] - float(reference.pvalue)) <= 1e-12
                assert abs(stated["t_test"]["statistic"] - float(reference.statistic)) <= 1e-12
            if metric != "ndcg_at_10":
                continue
            permutation = scipy.stats.permutation_test((a, b), lambda x, y, axis: np.mean(x - y, axis=axis),
                                                       vectorized=True,
                                                       permutation_type="samples", n_resamples=99_999,
                                                       random_state=np.random.default_rng(7))
            p = stated["randomization"]["p_value"]
            spread = math.sqrt(max(p * (1 - p), 1e-4) * (1 / 10_000 + 1 / 100_000))
            assert abs(p - float(permutation.pvalue)) <= 4.5 * spread + 2e-4, (p, permutation.pvalue)
            boot = scipy.stats.bootstrap((np.array(d),), np.mean, method="percentile", n_resamples=100_000,
                                         random_state=np.random.default_rng(7))
            se = float(np.std(d, ddof=1)) / math.sqrt(len(d))
            tolerance = 5 * math.sqrt(0.025 * 0.975 * (1 / 10_000 + 1 / 100_000)) * se / NormalDist().pdf(1.96)
            assert abs(stated["ci_low"] - float(boot.confidence_interval.low)) <= tolerance
            assert abs(stated["ci_high"] - float(boot.confidence_interval.high)) <= tolerance
    assert stats.holm([c["metrics"]["ndcg_at_10"]["randomization"]["p_value"] for c in document["comparisons"]]) == [
        c["metrics"]["ndcg_at_10"]["holm_p_value"] for c in document["comparisons"]]


def _check_exports(output_dir: Path, split: str, tmp_path: Path) -> None:
    inputs = load_inputs(output_dir, split, MODES)
    for name, text in export_texts(split, inputs).items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    for entry in inputs:
        qrels_path, run_path = tmp_path / f"scifact-{split}.qrels", tmp_path / f"scifact-{entry.mode}-{split}.run"
        for found in (with_pytrec_eval(read_qrels(qrels_path), read_run(run_path)),
                      with_ir_measures(qrels_path, run_path)):
            assert worst_gap(found, entry.rows) <= 1e-9
            assert mean_gap(found, entry.rows, entry.aggregate["metrics"]) <= 1e-9


@pytest.mark.compare
@pytest.mark.parametrize("split", ["calibration", "heldout", "all"])
def test_compare_against_scipy(split: str, output_dir: Path, tmp_path: Path, pytestconfig: pytest.Config) -> None:
    _present(output_dir, split, pytestconfig.getoption("--scifact-require-receipts"))
    document = _document(output_dir, split)
    _check_against_scipy(document, output_dir, split)
    _check_exports(output_dir, split, tmp_path)
