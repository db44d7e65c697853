"""A comparison (and an export's one qrels file per split) covers runs of one experiment only: `python -m harness
compare` refuses inputs of another fixture, system, store or freeze, or with other judgements, naming what differs
and between which inputs, before any statistic or file; `export` refuses rows whose judgements disagree, naming the
query and the modes."""

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.evaluation.comparison.artifact import CompareRequest, compare
from harness.evaluation.comparison.inputs import ComparisonRefused
from harness.publish.exports.exports import ExportRefused, export

from .comparisons import comparison_path, taken_as_eligible
from .support import Json, RunCopy, sha256_bytes

OTHER = sha256_bytes(b"another experiment")

RECEIPT_EDITS: dict[str, tuple[str, Callable[[Json], object], str]] = {
    "fixture": ("calibration", lambda r: r["corpus"].update(fixture_sha256=OTHER),
                f"the fixture digest differs between fts_only (.*) and hybrid (.*) (.*against {OTHER})"),
    "system": ("calibration", lambda r: r["system"].update(version="2.0"),
               r"the system identity differs between fts_only (.*) and hybrid (.*) \(differing fields: version\)"),
    "store": ("calibration", lambda r: r["store"].update(store_sha256=OTHER),
              "the store digest differs between fts_only (.*) and hybrid"),
    "freeze": ("heldout", lambda r: r["freeze"].update(sha256=OTHER),
               "the freeze digest differs between fts_only (.*) and hybrid"),
    "no freeze": ("heldout", lambda r: r.update(freeze=None),
                  r"hybrid (.*) record no freeze, which a heldout run must have run under"),
}


@pytest.mark.parametrize("facet", sorted(RECEIPT_EDITS))
def test_inputs_of_another_experiment_are_refused(run_copy: RunCopy, facet: str) -> None:
    split, edit, message = RECEIPT_EDITS[facet]
    run_copy.edit_receipt("hybrid", split, edit)
    request = CompareRequest(run_copy.out, split, validate_inputs=split != "calibration")
    with pytest.raises(ComparisonRefused, match=f"the {split} inputs are not of one experiment") as caught:
        compare(request, taken_as_eligible)
    assert re.search(message, str(caught.value)), str(caught.value)
    assert str(run_copy.aggregate_path("hybrid", split)) in str(caught.value)
    assert "one fixture, one set of judgements, one system and store, and one freeze" in str(caught.value)
    assert not comparison_path(run_copy, split).exists()


def test_judgements_that_disagree_are_refused_by_compare_and_export(run_copy: RunCopy, tmp_path: Path) -> None:
    """One hybrid row carries other qrels than the fts_only row of its query (the digest resealed around it)."""
    first = run_copy.rows("fts_only", "calibration")[0]
    judged = {**first["qrels"], "another-document": 1}

    def change(rows: list[Json]) -> None:
        rows[0]["qrels"] = judged
    run_copy.edit_rows("hybrid", "calibration", change)
    with pytest.raises(ComparisonRefused, match="not of one experiment") as caught:
        compare(CompareRequest(run_copy.out, "calibration", validate_inputs=False), taken_as_eligible)
    assert (f"the judgements differ: query {first['query_id']!r} is judged {first['qrels']} in fts_only "
            f"({run_copy.aggregate_path('fts_only', 'calibration')}) but {judged} in hybrid") in str(caught.value)
    with pytest.raises(ExportRefused, match="the calibration runs do not share their judgements") as refused:
        export(run_copy.out, tmp_path / "exports")
    assert f"query {first['query_id']!r} is judged" in str(refused.value) and "in hybrid" in str(refused.value)
    assert not (tmp_path / "exports").exists()
