"""The ranking to depth 100 beside the top-10 claim, on the tiny corpus with the built-in system: cut from each timed
call's lanes (no second search), equal to what a second search after every timed call gives, the claim's fields exactly
what a run without it writes, a failed depth search or cut named and counted as zero while the claim stands, and a
system that declares none gets none."""

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from harness.corpus.contract import Contract
from harness.evaluation.runner import ModeRun, run_mode
from harness.fixture.corpus_fixture import CorpusFixture
from harness.modes import SEARCHED as MODES
from harness.schema_check import validate
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.store.store import Store, build_store
from harness.systems.builtin.system import BuiltinSystem
from harness.systems.protocol import Hit, SearchFailed, SearchOutcome, SystemIdentity
from harness.validator.core.context import Context
from harness.validator.core.report import Report
from harness.validator.rows.check_depth import check_depth_aggregate, check_depth_rows
from harness.validator.rows.measures import run_conventions

CLAIM = ("query_id", "qrels", "ranked_doc_ids", "results", "error", "failed_by")
TOP_10_METRICS = ("ndcg_at_10", "recall_at_1", "recall_at_5", "recall_at_10", "mrr_at_10", "map_at_10",
                  "success_at_1", "success_at_5", "success_at_10")


@dataclasses.dataclass
class Recording(BuiltinSystem):
    """The built-in system, recording the top_k of every search; it can fail one query's depth search and declare
    more than the built-in system does."""

    declared: dict[str, Any] = dataclasses.field(default_factory=dict)
    fail_depth_of: str | None = None
    calls: list[int] = dataclasses.field(default_factory=list)

    def identity(self) -> SystemIdentity:
        base = super().identity()
        return dataclasses.replace(base, declarations={**base.declarations, **self.declared})

    def search(self, mode: str, text: str, vector: NDArray[np.float32] | None, top_k: int) -> SearchOutcome:
        self.calls.append(top_k)
        if top_k == 100 and text == self.fail_depth_of:
            raise SearchFailed("search('hybrid') returned doc id 'x' twice (ranks 3 and 9)", None)
        return super().search(mode, text, vector, top_k)


class SearchedAgain(Recording):
    """The same system without `deepen`: the run searches each answered query again at top_k = 100."""

    deepen = None  # type: ignore[assignment]


class CutFails(Recording):
    """The built-in system whose cut from the lanes raises (a fault of the harness's own code)."""

    def deepen(self, outcome: SearchOutcome, depth: int) -> list[Hit]:
        raise RuntimeError("the lanes were let go")


@pytest.fixture
def store(tiny_corpus: CorpusFixture, tiny: Contract, store_dir: Path) -> Store:
    return build_store(store_dir, tiny_corpus, tiny.namespace, SearchConfig().lexical)[0]


def _run(system: Recording, mode: str, corpus: CorpusFixture, contract: Contract, output: Path) -> ModeRun:
    return run_mode(mode=mode, split="calibration", fixture=corpus, contract=contract, system=system, top_k=10,
                    output_dir=output, replace=False, argv=["test"])


def _rows(run: ModeRun) -> list[dict[str, Any]]:
    return [json.loads(line) for line in run.rows_path.read_bytes().splitlines()]


def _validator_report(run: ModeRun) -> Report:
    aggregate = json.loads(run.aggregate_path.read_bytes())
    ctx = Context(run.aggregate_path, aggregate, run.rows_path, _rows(run), None, None, None, None)
    report = Report(str(run.aggregate_path))
    check_depth_rows(ctx, report, run_conventions(ctx).conventions)
    check_depth_aggregate(ctx, report)
    return report


@pytest.mark.parametrize("mode", MODES)
def test_the_depth_ranking_is_cut_from_the_timed_calls_lanes_and_the_claim_is_what_it_was(
        mode: str, tiny_corpus: CorpusFixture, tiny: Contract, store: Store, tmp_path: Path) -> None:
    deep, again = Recording(store, SearchConfig()), SearchedAgain(store, SearchConfig())
    without = Recording(store, SearchConfig(), declared={"depth_ranking": False})
    run, searched = _run(deep, mode, tiny_corpus, tiny, tmp_path / "deep"), _run(again, mode, tiny_corpus, tiny,
                                                                               tmp_path / "again")
    plain = _run(without, mode, tiny_corpus, tiny, tmp_path / "plain")
    rows, searched_rows, plain_rows = _rows(run), _rows(searched), _rows(plain)
    assert set(deep.calls) == {10} and len(deep.calls) == len(without.calls)  # no query searched twice
    first_deep = again.calls.index(100)
    assert set(again.calls[:first_deep]) == {10} and again.calls[first_deep:] == [100] * len(rows)
    assert set(without.calls) == {10} and len(without.calls) == first_deep
    for row, searched_row, other in zip(rows, searched_rows, plain_rows, strict=True):
        validate(row, "query-row")
        assert row["depth_ranking"] == searched_row["depth_ranking"] and row["metrics"] == searched_row["metrics"]
        assert {key: row[key] for key in CLAIM} == {key: other[key] for key in CLAIM}
        assert {k: row["metrics"][k] for k in TOP_10_METRICS} == other["metrics"]
        receipt = {k: v for k, v in row["search_receipt"].items() if k != "request_id"}
        assert receipt == {k: v for k, v in other["search_receipt"].items() if k != "request_id"}
        depth = row["depth_ranking"]
        assert depth["error"] is None and depth["doc_ids"][:10] == row["ranked_doc_ids"]
        assert depth["scores"][:10] == [result["score"] for result in row["results"]]
        assert set(row["metrics"]) == {*TOP_10_METRICS, "recall_at_100", "ndcg_at_100"}
        assert "depth_ranking" not in other
    assert list(rows[0]) == list(searched_rows[0])  # the same fields in the same order: the same bytes
    aggregate, other_aggregate = run.aggregate["metrics"], plain.aggregate["metrics"]
    assert {k: v for k, v in aggregate.items() if k != "latency_ms"} == {
        k: v for k, v in searched.aggregate["metrics"].items() if k != "latency_ms"}
    assert aggregate["depth_ranking"] == {"depth": 100, "failures": 0, "top_k_prefix_differs": 0}
    assert "recall_at_100" in aggregate and "recall_at_100" not in other_aggregate
    assert "depth_ranking" not in other_aggregate
    assert {k: aggregate[k] for k in TOP_10_METRICS} == {k: other_aggregate[k] for k in TOP_10_METRICS}
    for report in (_validator_report(run), _validator_report(searched), _validator_report(plain)):
        assert not report.failed, report.checks


def test_a_cut_that_fails_is_named_a_fault_of_the_harness_and_counts_zero_while_the_claim_stands(
        tiny_corpus: CorpusFixture, tiny: Contract, store: Store, tmp_path: Path) -> None:
    answered = _rows(_run(Recording(store, SearchConfig()), "vector_only", tiny_corpus, tiny, tmp_path / "first"))
    run = _run(CutFails(store, SearchConfig()), "vector_only", tiny_corpus, tiny, tmp_path / "out")
    rows = _rows(run)
    for row, before in zip(rows, answered, strict=True):
        assert row["ranked_doc_ids"] == before["ranked_doc_ids"] and row["error"] is None
        assert row["depth_ranking"] == {"depth": 100, "doc_ids": [], "scores": [], "error": (
            "depth-100 ranking: a fault of the harness: RuntimeError: the lanes were let go; report it")}
        assert row["metrics"]["recall_at_100"] == 0.0
    assert run.aggregate["metrics"]["depth_ranking"]["failures"] == len(rows)
    assert not _validator_report(run).failed


def test_a_failed_depth_search_is_named_for_the_system_and_counts_zero_while_the_claim_stands(
        tiny_corpus: CorpusFixture, tiny: Contract, store: Store, tmp_path: Path) -> None:
    answered = _rows(_run(SearchedAgain(store, SearchConfig()), "hybrid", tiny_corpus, tiny, tmp_path / "first"))
    broken_query = answered[0]["query_id"]
    text = next(q["text"] for q in tiny_corpus.data["queries"] if q["query_id"] == broken_query)
    run = _run(SearchedAgain(store, SearchConfig(), fail_depth_of=text), "hybrid", tiny_corpus, tiny,
               tmp_path / "out")
    rows = _rows(run)
    failed = next(row for row in rows if row["query_id"] == broken_query)
    assert failed["error"] is None and failed["ranked_doc_ids"] == answered[0]["ranked_doc_ids"]
    assert failed["depth_ranking"]["doc_ids"] == [] and failed["depth_ranking"]["error"] == (
        "depth-100 ranking: system 'builtin': search('hybrid') returned doc id 'x' twice (ranks 3 and 9)")
    assert failed["metrics"]["recall_at_100"] == failed["metrics"]["ndcg_at_100"] == 0.0
    assert failed["metrics"]["ndcg_at_10"] == answered[0]["metrics"]["ndcg_at_10"]
    assert run.failures == () and run.aggregate["metrics"]["failures"] == 0
    assert run.aggregate["metrics"]["depth_ranking"]["failures"] == 1
    assert run.aggregate["metrics"]["recall_at_100"] == pytest.approx(
        sum(row["metrics"]["recall_at_100"] for row in rows) / len(rows), abs=1e-15)
    assert not _validator_report(run).failed


def test_a_depth_ranking_declaration_that_is_not_a_boolean_is_refused_before_any_query(
        tiny_corpus: CorpusFixture, tiny: Contract, store: Store, tmp_path: Path) -> None:
    from harness.evaluation.receipts.identity_check import SystemStringsError, check_identity

    system = Recording(store, SearchConfig(), declared={"depth_ranking": "no"})
    with pytest.raises(SystemStringsError, match=r"system 'builtin'.*depth_ranking.*'no' is not of type 'boolean'"):
        check_identity(system.identity())
