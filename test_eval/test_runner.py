"""The runner on the tiny corpus: artifacts, failure rows, refusal to overwrite, gates, receipts."""

import dataclasses
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from harness.corpus.contract import Contract
from harness.corpus.split import select
from harness.evaluation import depth_ranking, runner
from harness.evaluation.measures import metrics
from harness.evaluation.measures.metrics import Conventions
from harness.evaluation.receipts.artifacts import ArtifactExistsError
from harness.evaluation.receipts.locations import LOCATIONS_NAME, LOCK_NAME
from harness.evaluation.run_split import Evaluation, SplitGateError, check_split_gate, run_split
from harness.evaluation.runner import FailedQuery, ModeRun, run_mode
from harness.fixture.corpus_fixture import CorpusFixture
from harness.modes import SEARCHED as MODES
from harness.schema_check import validate
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.store.store import Store, build_store
from harness.systems.builtin.system import BuiltinSystem
from harness.systems.protocol import SearchOutcome


@pytest.fixture
def store(tiny_corpus: CorpusFixture, tiny: Contract, store_dir: Path) -> Store:
    return build_store(store_dir, tiny_corpus, tiny.namespace, SearchConfig().lexical)[0]


def _run(mode: str, split: str, corpus: CorpusFixture, contract: Contract, store: Store, output: Path,
         system: BuiltinSystem | None = None, replace: bool = False) -> ModeRun:
    return run_mode(mode=mode, split=split, fixture=corpus, contract=contract,
                    system=system or BuiltinSystem(store, SearchConfig()), top_k=SearchConfig().top_k,
                    output_dir=output, replace=replace, argv=["test"])


def _rows(run: ModeRun) -> list[dict[str, Any]]:
    return [json.loads(line) for line in run.rows_path.read_bytes().splitlines()]


@pytest.mark.parametrize("mode", MODES)
def test_a_run_writes_rows_and_a_matching_aggregate(mode: str, tiny_corpus: CorpusFixture, tiny: Contract,
                                                     store: Store, tmp_path: Path) -> None:
    run = _run(mode, "calibration", tiny_corpus, tiny, store, tmp_path / "out")
    assert run.rows_path.name == f"tiny-test-{mode}-calibration.jsonl"
    assert run.aggregate_path.name == f"tiny-test-{mode}-calibration.aggregate.json"
    rows = _rows(run)
    aggregate = json.loads(run.aggregate_path.read_bytes())
    validate(aggregate, "aggregate")
    for row in rows:
        validate(row, "query-row")
    selected = select([q["query_id"] for q in tiny_corpus.data["queries"]], "calibration", tiny.calibration_count)
    assert [row["query_id"] for row in rows] == selected
    assert aggregate["per_query_sha256"] == "sha256:" + hashlib.sha256(run.rows_path.read_bytes()).hexdigest()
    assert aggregate["row_count"] == len(rows) == 2
    mean = sum(row["metrics"]["ndcg_at_10"] for row in rows) / len(rows)
    assert aggregate["metrics"]["ndcg_at_10"] == pytest.approx(mean, abs=1e-15)
    assert len({row["request_id"] for row in rows}) == len(rows)
    assert all(row["request_id"] == f"tiny-test/{mode}/calibration/run-1/{row['query_id']}" for row in rows)
    receipt = aggregate["receipt"]
    assert receipt["store"]["before_run_sha256"] == receipt["store"]["after_run_sha256"] == store.sha256
    assert receipt["retrieval"]["config"] == SearchConfig().to_dict()
    assert {c["reason"] != "" for c in receipt["capabilities"].values()} == {True}
    assert set(receipt["capabilities"]) >= {"sparse", "late_interaction", "matryoshka", "graph"}
    assert any(item.startswith("superiority over another system: only a validated comparison between systems")
               for item in receipt["claim_boundary"]["does_not_establish"])
    assert receipt["machine"]["logical_cores"] >= 1 and receipt["machine"]["cpu_model"]
    assert receipt["corpus"]["fixture_sha256"] == tiny_corpus.sha256
    assert receipt["measures"] == tiny.measures == {"ndcg_gain": "grade", "map_denominator": "relevant"}


Measure = Callable[[Sequence[str], Mapping[str, int], Conventions], dict[str, float]]


def test_every_metric_is_computed_under_the_contract_s_declared_conventions(
        tiny_corpus: CorpusFixture, tiny: Contract, store: Store, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A contract declaring the other conventions: every row's metrics at 10 and at 100 are computed under them, and
    the receipt states them."""
    declared = {"ndcg_gain": "exponential", "map_denominator": "relevant_within_k"}
    seen: list[tuple[str, Conventions]] = []

    def recording(name: str, measure: Measure) -> Measure:
        def call(ranking: Sequence[str], qrels: Mapping[str, int], conventions: Conventions) -> dict[str, float]:
            seen.append((name, conventions))
            return measure(ranking, qrels, conventions)
        return call
    monkeypatch.setattr(runner, "query_metrics", recording("top 10", metrics.query_metrics))
    monkeypatch.setattr(depth_ranking, "depth_metrics", recording("depth 100", metrics.depth_metrics))
    run = _run("fts_only", "calibration", tiny_corpus, dataclasses.replace(tiny, measures=declared), store,
               tmp_path / "out")
    rows = _rows(run)
    assert sorted(seen, key=lambda call: call[0]) == [("depth 100", Conventions(**declared))] * len(rows) + [
        ("top 10", Conventions(**declared))] * len(rows)
    aggregate = json.loads(run.aggregate_path.read_bytes())
    validate(aggregate, "aggregate")
    assert aggregate["receipt"]["measures"] == declared


def test_a_failed_query_keeps_its_row_and_counts_as_zero(tiny_corpus: CorpusFixture, tiny: Contract, store: Store,
                                                         tmp_path: Path) -> None:
    selected = select([q["query_id"] for q in tiny_corpus.data["queries"]], "heldout", tiny.calibration_count)
    doomed = next(q["text"] for q in tiny_corpus.data["queries"] if q["query_id"] == selected[0])

    class Flaky(BuiltinSystem):
        def search(self, mode: str, text: str, vector: NDArray[np.float32] | None, top_k: int) -> SearchOutcome:
            if text == doomed:
                raise RuntimeError("the backend fell over")
            return super().search(mode, text, vector, top_k)

    healthy = _run("fts_only", "heldout", tiny_corpus, tiny, store, tmp_path / "healthy")
    flaky = _run("fts_only", "heldout", tiny_corpus, tiny, store, tmp_path / "flaky",
                 system=Flaky(store, SearchConfig()))
    rows = _rows(flaky)
    assert len(rows) == len(selected) == 4
    failed = rows[0]
    assert failed["error"] == "a fault of the harness: RuntimeError: the backend fell over; report it"
    assert failed["failed_by"] == "harness" and all(row["failed_by"] is None for row in rows[1:])
    assert flaky.failures == (FailedQuery(selected[0], "harness", "RuntimeError: the backend fell over"),)
    assert failed["ranked_doc_ids"] == [] and failed["results"] == []
    assert set(failed["metrics"].values()) == {0.0}
    assert failed["search_receipt"]["error"] == failed["error"]
    metrics = flaky.aggregate["metrics"]
    assert metrics["failures"] == 1
    assert metrics["result_count_distribution"]["0"] == 1
    others = [row["metrics"]["ndcg_at_10"] for row in _rows(healthy)[1:]]
    assert metrics["ndcg_at_10"] == pytest.approx(sum(others) / 4)


def test_an_existing_artifact_is_never_overwritten(tiny_corpus: CorpusFixture, tiny: Contract, store: Store,
                                                   tmp_path: Path) -> None:
    first = _run("hybrid", "calibration", tiny_corpus, tiny, store, tmp_path)
    before = first.rows_path.read_bytes(), first.aggregate_path.read_bytes()
    with pytest.raises(ArtifactExistsError, match="never overwritten"):
        _run("hybrid", "calibration", tiny_corpus, tiny, store, tmp_path)
    assert (first.rows_path.read_bytes(), first.aggregate_path.read_bytes()) == before
    second = _run("hybrid", "calibration", tiny_corpus, tiny, store, tmp_path, replace=True)
    assert second.superseded is not None
    assert (second.superseded / first.rows_path.name).read_bytes() == before[0]
    assert (second.superseded / first.aggregate_path.name).read_bytes() == before[1]
    assert _rows(second)[0]["request_id"].endswith("/run-2/" + _rows(second)[0]["query_id"])


def test_request_ids_never_repeat_on_one_store(tiny_corpus: CorpusFixture, tiny: Contract, store: Store,
                                               tmp_path: Path) -> None:
    seen: set[str] = set()
    for attempt in range(3):
        run = _run("vector_only", "calibration", tiny_corpus, tiny, store, tmp_path / str(attempt))
        ids = {row["request_id"] for row in _rows(run)}
        assert not ids & seen
        seen |= ids


def test_all_needs_heldout_receipts_first(tmp_path: Path) -> None:
    with pytest.raises(SplitGateError, match="needs a held-out receipt first"):
        check_split_gate("all", ("fts_only",), tmp_path, "scifact", is_contract=True)
    check_split_gate("all", ("fts_only",), tmp_path, "scifact", is_contract=False)  # a parity profile: never a claim
    (tmp_path / "nfcorpus-fts_only-heldout.aggregate.json").write_text("{}")  # another dataset's receipt is not it
    with pytest.raises(SplitGateError, match="needs a held-out receipt first"):
        check_split_gate("all", ("fts_only",), tmp_path, "scifact", is_contract=True)
    (tmp_path / "scifact-fts_only-heldout.aggregate.json").write_text("{}")
    check_split_gate("all", ("fts_only",), tmp_path, "scifact", is_contract=True)


def test_evaluate_refuses_a_fixture_of_another_contract(tiny_corpus: CorpusFixture, tmp_path: Path) -> None:
    from harness.corpus.contract import scifact_contract
    from harness.errors import HarnessError

    evaluation = Evaluation(corpus=tiny_corpus.path, store_dir=tmp_path / "s", output_dir=tmp_path / "o",
                            split="calibration")
    with pytest.raises(HarnessError, match="built under contract 'tiny-test'"):
        run_split(evaluation, scifact_contract())
    assert not (tmp_path / "s").exists() and not (tmp_path / "o").exists()


def test_evaluate_runs_every_mode(tiny_corpus: CorpusFixture, tiny: Contract, tmp_path: Path) -> None:
    runs = run_split(Evaluation(corpus=tiny_corpus.path, store_dir=tmp_path / "s", output_dir=tmp_path / "o",
                               split="calibration"), tiny)
    assert [run.mode for run in runs] == list(MODES)
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == sorted(
        [LOCATIONS_NAME, LOCK_NAME, *(name for mode in MODES for name in (f"tiny-test-{mode}-calibration.jsonl",
                                                                         f"tiny-test-{mode}-calibration.aggregate.json"))])
