"""`pytest -m compare`: after the modes of a split exist in the output directory, the comparison of that split
(written, or checked byte for byte against the one already there), its statistics against scipy on the real rows,
the independent validator's recomputation, and the TREC export evaluated by pytrec_eval and ir_measures.

A held-out or all-query comparison needs every aggregate ELIGIBLE; when the receipts come from another source than
this work tree (a dirty tree, a later commit) they are not, and those splits are then compared only in memory (the
statistics are checked all the same) and the test says so; any other failure fails the test. A split whose
receipts are not there yet is skipped, unless --scifact-require-receipts (CI) makes that a failure.
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
    CompareRequest,
    Procedure,
    compare,
    comparison_document,
    comparison_name,
    document_bytes,
)
from harness.evaluation.comparison.inputs import load_inputs
from harness.evaluation.receipts.artifacts import aggregate_name, output_dataset
from harness.modes import MODES
from harness.publish.exports.exports import export_texts
from harness.validator.pipeline import validate, validate_comparison
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
    """The split's comparison: the artifact (written now if absent, else recomputed and compared byte for byte)."""
    target = output_dir / comparison_name(_dataset(output_dir), split)
    inputs = load_inputs(output_dir, split, MODES)
    if target.is_file():
        existing = json.loads(target.read_bytes())
        procedure = existing["procedure"]
        again = comparison_document(inputs, split, baseline=existing["baseline"], procedure=Procedure(
            procedure["seed"], procedure["bootstrap_resamples"], procedure["permutations"]),
            verdicts=existing["inputs_validation"]["verdicts"])
        assert document_bytes(again) == target.read_bytes(), f"{target} does not reproduce byte for byte"
        return again
    failing = {a.mode: {c.name for c in validate(a.aggregate_path).checks if c.status != "pass"} for a in inputs}
    eligible = not any(failing.values())
    if eligible or split == "calibration":
        _, document, _ = compare(CompareRequest(output_dir, split, validate_inputs=eligible),
                                 judge=lambda judged: [(True, "validated by this test")] * len(judged))
        return document
    beyond = {mode: sorted(names - SOURCE_CHECKS) for mode, names in failing.items() if names - SOURCE_CHECKS}
    assert not beyond, f"{split} aggregates fail more than the source checks: {beyond}"
    print(f"{split}: not written (the receipts' source is not this work tree's: {failing}); compared in memory")
    return comparison_document(inputs, split, baseline=None, procedure=Procedure(), verdicts=None)


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
def test_compare(split: str, output_dir: Path, tmp_path: Path, pytestconfig: pytest.Config) -> None:
    _present(output_dir, split, pytestconfig.getoption("--scifact-require-receipts"))
    document = _document(output_dir, split)
    _check_against_scipy(document, output_dir, split)
    _check_exports(output_dir, split, tmp_path)
    target = output_dir / comparison_name(_dataset(output_dir), split)
    if target.is_file():
        report = validate_comparison(target)
        failing = [c.line() for c in report.checks if c.status != "pass" and c.name != "comparison.inputs_eligible"]
        assert not failing, "\n".join(failing)
    for comparison in document["comparisons"]:
        stated = comparison["metrics"]["ndcg_at_10"]
        print(f"{split}: {comparison['a']} - {comparison['b']} nDCG@10 {stated['mean_difference']:+.4f} "
              f"[{stated['ci_low']:+.4f}, {stated['ci_high']:+.4f}] p {stated['randomization']['p_value']:.4g} "
              f"t-test {stated['t_test']['p_value']:.4g} Holm {stated['holm_p_value']:.4g}")
