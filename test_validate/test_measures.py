"""The metric conventions: the validator recomputes every metric under its own pins' conventions, never the receipt's
word, and refuses a receipt that states other conventions by name (`receipt.measures`), even when a careful forger
recomputed every row and mean under the conventions it claims."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from harness.evaluation.measures.aggregate import aggregate_metrics
from harness.evaluation.measures.metrics import Conventions, depth_metrics, query_metrics
from harness.evaluation.receipts.artifacts import rows_bytes
from harness.hashing import sha256_bytes
from harness.validator.comparison.comparison_inputs import Input, recompute
from harness.validator.core.report import FAIL, PASS
from harness.validator.dataset.pins import all_pins
from harness.validator.pipeline import validate
from harness.validator.retrieval.ir_metrics import TREC_EVAL
from harness.validator.retrieval.ir_metrics import Conventions as Pinned
from harness.validator.rows import measures
from harness.validator.rows.measures import pinned_conventions

from . import forger
from .support import Row, RunCopy, assert_fails, check_named, describe, failed_names

EXPONENTIAL = Conventions(ndcg_gain="exponential", map_denominator="relevant_within_k")


def _reseal(rows: list[Row], conventions: Conventions) -> None:
    for row in rows:
        row["metrics"] = query_metrics(row["ranked_doc_ids"], row["qrels"], conventions)
        if "depth_ranking" in row:
            row["metrics"].update(depth_metrics(row["depth_ranking"]["doc_ids"], row["qrels"], conventions))


def _forged(copy: RunCopy, conventions: Conventions, *, graded: bool) -> Path:
    """Every row's metrics and the aggregate recomputed under `conventions`, which the receipt then states; with
    `graded`, the first row ranking two documents judges them 1 and 3 first (best last: the two gains differ)."""
    rows = copy.rows("fts_only", "calibration")
    if graded:
        row = next(row for row in rows if len(row["ranked_doc_ids"]) >= 2)
        row["qrels"] = {row["ranked_doc_ids"][0]: 1, row["ranked_doc_ids"][1]: 3}
    _reseal(rows, conventions)
    forger.write_forged(copy, "fts_only", "calibration", rows,
                        change_aggregate=lambda a: a["receipt"].update(measures=conventions.record()))
    return copy.aggregate_path("fts_only", "calibration")


def test_the_clean_receipt_states_the_pinned_conventions(run_copy: RunCopy) -> None:
    path = run_copy.aggregate_path("fts_only", "calibration")
    assert json.loads(path.read_bytes())["receipt"]["measures"] == all_pins()["tiny-test"].measures
    check = check_named(validate(path, embeddings=False), "receipt.measures")
    assert check.status == PASS and "tiny test corpus" in check.detail, check


def test_a_receipt_claiming_other_conventions_is_refused_by_name(run_copy: RunCopy) -> None:
    """Rows and means resealed under the exponential gain and the min(R, 10) divisor, the receipt saying so: on the
    tiny corpus's binary judgements every number is unchanged, and only the stated conventions give the forgery
    away."""
    report = validate(_forged(run_copy, EXPONENTIAL, graded=False), embeddings=False)
    assert_fails(report, ("receipt.measures",))
    check = check_named(report, "receipt.measures")
    assert (check.expected, check.found) == (TREC_EVAL.record(), EXPONENTIAL.record()), check


def test_the_metrics_are_recomputed_under_the_pins_never_the_receipt(run_copy: RunCopy, tmp_path: Path) -> None:
    """Graded judgements (which the fixture does not hold: rows.query_identity) resealed under the conventions the
    receipt claims: rows.metrics recomputes them under the pins' and refuses them; resealed under the pins'
    conventions, the same rows pass it."""
    claimed = validate(_forged(run_copy, EXPONENTIAL, graded=True), embeddings=False)
    assert {"rows.metrics", "receipt.measures", "rows.query_identity"} <= failed_names(claimed), describe(claimed)
    assert "query" in check_named(claimed, "rows.metrics").detail
    pinned = Conventions.declared(all_pins()["tiny-test"].measures)
    honest = validate(_forged(run_copy, pinned, graded=True), embeddings=False)
    assert check_named(honest, "rows.metrics").status == PASS, describe(honest)
    assert check_named(honest, "receipt.measures").status == PASS
    assert check_named(honest, "rows.query_identity").status == FAIL


def test_a_comparison_recomputes_under_the_pins(run_copy: RunCopy) -> None:
    """The comparison's per-query values come from the pins' conventions: rows resealed under the receipt's claimed
    conventions are a problem on graded judgements, rows resealed under the pins' are not."""
    for conventions, problems in ((EXPONENTIAL, 1), (Conventions.declared(TREC_EVAL.record()), 0)):
        path = _forged(run_copy, conventions, graded=True)
        aggregate = json.loads(path.read_bytes())
        loaded = Input("fts_only", run_copy.rows_path("fts_only", "calibration"), path, aggregate)
        found = recompute({"fts_only": loaded}, "calibration").problems
        assert len([p for p in found if "states metrics" in p]) == problems, found


def test_every_pinned_dataset_declares_known_conventions_and_an_unpinned_one_gets_trec_eval_s() -> None:
    for name, pins in all_pins().items():
        assert pinned_conventions(name).conventions == Pinned.of(pins.measures), name
    assert pinned_conventions("beir-scifact").conventions == TREC_EVAL
    unpinned = pinned_conventions("not-a-dataset")
    assert unpinned.conventions == TREC_EVAL and "no pins" in unpinned.source


def test_the_forged_rows_are_what_the_runner_would_write(run_copy: RunCopy) -> None:
    """The forgery's own control: resealed under the declared conventions, the rows and aggregate are the clean
    run's bytes."""
    before = run_copy.rows_path("fts_only", "calibration").read_bytes()
    rows = run_copy.rows("fts_only", "calibration")
    _reseal(rows, Conventions.declared(TREC_EVAL.record()))
    assert rows_bytes(rows) == before
    aggregate = json.loads(run_copy.aggregate_path("fts_only", "calibration").read_bytes())
    assert aggregate["per_query_sha256"] == sha256_bytes(before)
    assert aggregate_metrics(rows, 10) == aggregate["metrics"]


@pytest.mark.parametrize("stated", [{"ndcg_gain": "cubic", "map_denominator": "relevant"},
                                    {"ndcg_gain": "grade", "map_denominator": "judged"},
                                    {"ndcg_gain": "exponential", "map_denominator": "relevant", "ndcg_cut": "10"}])
def test_an_unknown_convention_is_refused_never_computed_as_another(stated: dict[str, str],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A pins file stating a convention the validator does not know is refused by name: no gain of it is ever
    computed as 2^g - 1 or as the grade."""
    with pytest.raises(ValueError, match=r"unknown metric conventions|must state exactly"):
        Pinned.of(stated)
    tiny = next(iter(all_pins().values()))
    monkeypatch.setattr(measures, "pins_for", lambda dataset: replace(tiny, measures=stated))
    with pytest.raises(ValueError, match=r"unknown metric conventions|must state exactly"):
        pinned_conventions(tiny.dataset)


def test_each_known_gain_is_its_own() -> None:
    assert [Pinned("grade", "relevant").gain(g) for g in (-1, 0, 1, 2, 3)] == [0.0, 0.0, 1.0, 2.0, 3.0]
    assert [Pinned("exponential", "relevant").gain(g) for g in (-1, 0, 1, 2, 3)] == [0.0, 0.0, 1.0, 3.0, 7.0]
