"""Every comparison check in the validator's catalog can fail, alone: for each name, a comparison of the clean tiny
run's held-out receipts that violates that check, and the assertion that the validator fails it while every other
check reports what it reports on the clean comparison (isolation.py). test_check_coverage.py counts these names as
covered; a comparison check without a case here fails that suite.

Adding a comparison check: add its violation to COMPARISON_VIOLATIONS, with `Expected(also=..., why=...)` for any
check the violation necessarily fails too and `unreached`/`stops` for checks the validator then does not run.
"""

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from fixtures.archives import TINY_DATASET, tiny_contract
from fixtures.clean_checkout import mark_clean_checkout
from harness.evaluation.gates.freeze import freeze_configuration
from harness.evaluation.receipts.artifacts import aggregate_name, rows_name
from harness.evaluation.run_split import Evaluation, run_split
from harness.fixture.corpus_fixture import load_fixture
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.store.store import build_store
from harness.systems.builtin.system import BuiltinSystem
from harness.validator.core.report import Report
from harness.validator.pipeline import validate_comparison

from .comparisons import Compared, edit_comparison, reseal_input
from .isolation import Expected, assert_isolated
from .support import Json, RunCopy, failed_names, sha256_bytes, sha256_file

SPLIT = "heldout"
OTHER_DIGEST = sha256_bytes(b"something else")


@dataclass(frozen=True)
class Violation:
    apply: Callable[[RunCopy, Path], object]
    expected: Expected = field(default_factory=Expected)


ISOLATED = Expected()


def _document(change: Callable[[Json], object], expected: Expected = ISOLATED) -> Violation:
    return Violation(lambda copy, path: edit_comparison(path, change), expected)


def _restated_metric(copy: RunCopy, path: Path) -> None:
    """A hybrid row states an nDCG@10 its ranking does not give; every digest is resealed around it."""
    def change(rows: list[Json]) -> None:
        rows[0]["metrics"]["ndcg_at_10"] = 0.25
    copy.edit_rows("hybrid", SPLIT, change)
    reseal_input(copy, path, "hybrid", SPLIT)


def _ineligible_input(copy: RunCopy, path: Path) -> None:
    """An aggregate whose failure count no longer recomputes (its means untouched), resealed into the comparison."""
    copy.edit_aggregate("fts_only", SPLIT, lambda a: a["metrics"].update(failures=1))
    reseal_input(copy, path, "fts_only", SPLIT)


def _another_freeze(copy: RunCopy, path: Path) -> None:
    """The hybrid input replaced by the same system's hybrid run of a second experiment: the same fixture, system
    and store content, a store directory and run ledger of its own, and a freeze of its own. Both runs are eligible
    where they ran and their rows rank alike (every statistic stands); only the freeze they ran under differs."""
    contract, config = tiny_contract(), SearchConfig()
    fixture = load_fixture(copy.clean.fixture_path)
    store, _ = build_store(copy.scratch / "second-store", fixture, contract.namespace, config.lexical)
    out, argv = copy.scratch / "second-out", ("pytest", "test_validate")
    for split in ("calibration", "heldout"):
        if split == "heldout":
            freeze_configuration(fixture=fixture, system=BuiltinSystem(store, config), contract=contract,
                                 modes=("hybrid",), output_dir=out, argv=list(argv), allow_dirty=True, replace=False)
        run_split(Evaluation(corpus=fixture.path, store_dir=store.directory, output_dir=out, split=split,
                             modes=("hybrid",), config=config, argv=argv), contract)
    mark_clean_checkout(out)
    for name in (aggregate_name(TINY_DATASET, "hybrid", SPLIT), rows_name(TINY_DATASET, "hybrid", SPLIT)):
        shutil.copy2(out / name, copy.out / name)
    moved = copy.aggregate("hybrid", SPLIT)

    def change(document: Json) -> None:
        entry = next(e for e in document["inputs"] if e["mode"] == "hybrid")
        entry.update(rows_sha256=sha256_file(copy.rows_path("hybrid", SPLIT)),
                     aggregate_sha256=sha256_file(copy.aggregate_path("hybrid", SPLIT)),
                     run_id=moved["receipt"]["run"]["run_id"])
    edit_comparison(path, change)


def _holm(document: Json) -> None:
    document["comparisons"][0]["metrics"]["ndcg_at_10"]["holm_p_value"] = 0.5


STATISTICS = ("comparison.means", "comparison.statistics", "comparison.holm")

COMPARISON_VIOLATIONS: dict[str, Violation] = {
    "comparison.schema": _document(lambda d: d.update(unexpected=True), Expected(stops=True)),
    "comparison.inputs": _document(lambda d: d["inputs"][0].update(rows_sha256=OTHER_DIGEST), Expected(stops=True)),
    "comparison.rows": Violation(_restated_metric, Expected(
        also=frozenset({"comparison.inputs_eligible"}), unreached=frozenset(STATISTICS),
        why="the restated metric is in the hybrid aggregate's own rows, so that aggregate fails rows.metrics")),
    "comparison.procedure": _document(lambda d: d["procedure"]["descriptions"].update(holm="Bonferroni, roughly")),
    "comparison.means": _document(lambda d: d["modes"]["hybrid"]["ndcg_at_10"].update(ci_low=0.1)),
    "comparison.statistics": _document(lambda d: d["comparisons"][1]["metrics"]["recall_at_5"]["t_test"].update(
        df=2)),
    "comparison.holm": _document(_holm),
    "comparison.inputs_eligible": Violation(_ineligible_input),
    "comparison.experiment": Violation(_another_freeze, Expected(
        also=frozenset({"comparison.inputs_eligible"}),
        why="a receipt names its freeze record and store by digest, found beside it and by its output directory's "
            "locations.json: the moved run is judged against this experiment's freeze and store, so it is not "
            "eligible here either")),
}


@pytest.fixture(scope="session")
def clean_comparison(compared_heldout: Compared, tmp_path_factory: pytest.TempPathFactory) -> Report:
    _, path = compared_heldout.fresh(tmp_path_factory.mktemp("clean-comparison"))
    return validate_comparison(path, known=compared_heldout.known)


@pytest.mark.real_model
@pytest.mark.parametrize("name", sorted(COMPARISON_VIOLATIONS))
def test_the_violation_fails_its_check_and_no_other(name: str, compared_heldout: Compared, clean_comparison: Report,
                                                     tmp_path: Path) -> None:
    copy, path = compared_heldout.fresh(tmp_path)
    violation = COMPARISON_VIOLATIONS[name]
    violation.apply(copy, path)
    report = validate_comparison(path, known=compared_heldout.known)
    assert_isolated(name, violation.expected, report, clean_comparison)
    assert name in failed_names(report) and not report.eligible and report.exit_code() == 1


def test_a_comparison_that_is_not_strict_json_fails_its_schema_check(tmp_path: Path) -> None:
    path = tmp_path / "scifact-comparison-heldout.json"
    path.write_text(json.dumps({"schema": "scifact-comparison-v1"})[:-1] + ', "x": NaN}', encoding="utf-8")
    assert "comparison.schema" in failed_names(validate_comparison(path))
