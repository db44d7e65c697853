"""On SciFact (the real archive and its fixture): the built-in system's calibration runs carry depth-100 rankings
that begin with the top 10 in every mode and equal a search at top_k = 100 of the same store (they are cut from the
timed call's lanes), and the exported depth-100 runs give trec_eval's recall_100 and
ndcg_cut_100 (through pytrec_eval and ir_measures) equal to the rows' Recall@100 and nDCG@100, per query and mean."""

import json
from pathlib import Path
from typing import Any

import pytest

from harness.corpus.contract import scifact_contract
from harness.evaluation.measures.query_vectors import QueryVectors
from harness.evaluation.run_split import Evaluation, run_split
from harness.fixture.corpus_fixture import CorpusFixture
from harness.modes import mode as declared_mode
from harness.publish.exports.exports import export
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.system import BuiltinBuilder
from test_validate.trec_check import (
    DEPTH_TREC_NAMES,
    mean_gap,
    read_qrels,
    read_run,
    with_ir_measures,
    with_pytrec_eval,
    worst_gap,
)


@pytest.mark.real_data
def test_scifact_depth_100_runs_evaluate_in_trec_eval_as_the_rows_state(
        scifact_archive: Path, scifact_corpus: CorpusFixture, tmp_path: Path) -> None:
    out = tmp_path / "out"
    runs = run_split(Evaluation(corpus=scifact_corpus.path, store_dir=tmp_path / "store", output_dir=out,
                                split="calibration"), scifact_contract(), fixture=scifact_corpus)
    export(out, tmp_path / "exports")
    qrels_path = tmp_path / "exports" / "scifact-calibration.qrels"
    for run in runs:
        rows = [json.loads(line) for line in run.rows_path.read_text(encoding="utf-8").splitlines()]
        metrics = run.aggregate["metrics"]
        assert metrics["depth_ranking"] == {"depth": 100, "failures": 0, "top_k_prefix_differs": 0}, run.mode
        assert all(row["depth_ranking"]["doc_ids"][:10] == row["ranked_doc_ids"] for row in rows)
        assert sum(len(row["depth_ranking"]["doc_ids"]) == 100 for row in rows) >= 90, run.mode
        assert metrics["recall_at_100"] >= metrics["recall_at_10"]
        _equal_to_a_search_at_100(scifact_corpus, tmp_path / "store", run.mode, rows)
        run_path = tmp_path / "exports" / f"scifact-{run.mode}-calibration.depth100.run"
        for found in (with_pytrec_eval(read_qrels(qrels_path), read_run(run_path), depth=True),
                      with_ir_measures(qrels_path, run_path, depth=True)):
            assert worst_gap(found, rows, DEPTH_TREC_NAMES) <= 1e-9, run.mode
            assert mean_gap(found, rows, metrics, DEPTH_TREC_NAMES) <= 1e-9, run.mode


def _equal_to_a_search_at_100(corpus: CorpusFixture, store: Path, mode: str, rows: list[dict[str, Any]]) -> None:
    system = BuiltinBuilder(scifact_contract().namespace, SearchConfig()).open(corpus, store)
    vectors = QueryVectors(corpus) if declared_mode(mode).dense else None
    texts = {query["query_id"]: query["text"] for query in corpus.data["queries"]}
    for row in rows:
        text = texts[row["query_id"]]
        hits = system.search(mode, text, vectors(text) if vectors is not None else None, 100).hits
        assert row["depth_ranking"]["doc_ids"] == [hit.doc_id for hit in hits], (mode, row["query_id"])
        assert row["depth_ranking"]["scores"] == [hit.score for hit in hits], (mode, row["query_id"])
