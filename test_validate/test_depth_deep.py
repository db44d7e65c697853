"""The depth-100 rankings on a collection deeper than 100 documents (fixtures/deep_collection.py: 160 documents), where
a ranking cut at 10, at 99 or at the candidate depth differs from one cut at 100: the built-in system's calibration
runs carry depth-100 lists that begin with the top 10 and equal a search at top_k 100 of the same store, trec_eval
(pytrec_eval and ir_measures) gives the rows' Recall@100 and nDCG@100 from the exported depth-100 runs, and the
validator passes them all; a list cut at 10 or 99 is refused by the replay, one document too long by the schema.
The stand-in for the real-data test_eval/test_depth_scifact.py in the default suite."""

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from fixtures.deep_collection import DOCUMENTS, DeepRun, deep_run
from harness.embedding.embedders.local import LocalEmbedder
from harness.evaluation.measures.aggregate import aggregate_metrics
from harness.evaluation.measures.metrics import Conventions, depth_metrics
from harness.evaluation.measures.query_vectors import QueryVectors
from harness.evaluation.receipts.artifacts import rows_bytes
from harness.hashing import sha256_bytes
from harness.modes import mode as declared_mode
from harness.publish.exports.exports import export
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.system import BuiltinBuilder
from harness.validator.core.report import Report
from harness.validator.pipeline import validate

from .trec_check import DEPTH_TREC_NAMES, mean_gap, read_qrels, read_run, with_ir_measures, with_pytrec_eval, worst_gap

pytestmark = pytest.mark.real_model
DEPTH_CHECKS = ("rows.depth_ranking", "rows.depth_metrics", "aggregate.depth", "replay.depth")
Row = dict[str, Any]


@pytest.fixture(scope="module")
def deep(local_embedder: LocalEmbedder, tmp_path_factory: pytest.TempPathFactory) -> DeepRun:
    return deep_run(tmp_path_factory.mktemp("deep"), local_embedder)


def _rows(path: Path) -> list[Row]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _statuses(report: Report) -> dict[str, str]:
    return {c.name: c.status for c in report.checks if c.name in DEPTH_CHECKS}


def test_the_depth_100_lists_go_past_the_top_10_and_are_a_search_at_100(deep: DeepRun) -> None:
    system = BuiltinBuilder(deep.contract.namespace, SearchConfig()).open(deep.fixture, deep.store)
    texts = {query["query_id"]: query["text"] for query in deep.fixture.data["queries"]}
    for mode, run in deep.runs.items():
        rows = _rows(run.rows_path)
        assert run.aggregate["metrics"]["depth_ranking"] == {"depth": 100, "failures": 0, "top_k_prefix_differs": 0}
        assert all(row["depth_ranking"]["doc_ids"][:10] == row["ranked_doc_ids"] for row in rows), mode
        lengths = [len(row["depth_ranking"]["doc_ids"]) for row in rows]
        assert 100 in lengths and (min(lengths) == 100 or mode == "fts_only"), (mode, lengths)  # a lexical lane
        # ranks only the documents sharing a word with the query
        vectors = QueryVectors(deep.fixture) if declared_mode(mode).dense else None
        for row in rows:
            text = texts[row["query_id"]]
            hits = system.search(mode, text, vectors(text) if vectors is not None else None, 100).hits
            assert row["depth_ranking"]["doc_ids"] == [hit.doc_id for hit in hits], (mode, row["query_id"])
            assert row["depth_ranking"]["scores"] == [hit.score for hit in hits], (mode, row["query_id"])
    deeper = [row for row in _rows(deep.runs["vector_only"].rows_path)
              if row["metrics"]["recall_at_100"] > row["metrics"]["recall_at_10"]]
    assert deeper, "a query with relevant documents below rank 10, so a cut at 10 shows"
    assert len(deep.fixture.data["documents"]) == DOCUMENTS > 100


def test_trec_eval_gives_the_rows_depth_100_metrics(deep: DeepRun, tmp_path: Path) -> None:
    export(deep.out, tmp_path / "exports")
    [qrels_path] = (tmp_path / "exports").glob("*-calibration.qrels")
    for mode, run in deep.runs.items():
        rows = _rows(run.rows_path)
        [run_path] = (tmp_path / "exports").glob(f"*-{mode}-calibration.depth100.run")
        for found in (with_pytrec_eval(read_qrels(qrels_path), read_run(run_path), depth=True),
                      with_ir_measures(qrels_path, run_path, depth=True)):
            assert worst_gap(found, rows, DEPTH_TREC_NAMES) <= 1e-9, mode
            assert mean_gap(found, rows, run.aggregate["metrics"], DEPTH_TREC_NAMES) <= 1e-9, mode


def test_the_validator_passes_every_depth_check(deep: DeepRun) -> None:
    for mode, run in deep.runs.items():
        report = validate(run.aggregate_path, embeddings=False, archive=deep.archive)
        assert _statuses(report) == dict.fromkeys(DEPTH_CHECKS, "pass"), (mode, report.lines())


def _forged(deep: DeepRun, tmp_path: Path, mode: str, change: Any) -> Report:
    """The run's output directory copied, one row's depth-100 list changed, its metrics, the aggregate's means and
    the rows' digest recomputed as the runner computes them (as forger.py does for the tiny runs), and validated."""
    out = Path(shutil.copytree(deep.out, tmp_path / "out"))
    run = deep.runs[mode]
    aggregate_path, rows_path = out / run.aggregate_path.name, out / run.rows_path.name
    rows = _rows(rows_path)
    row = next(r for r in rows if len(r["depth_ranking"]["doc_ids"]) == 100)
    change(row, deep)
    row["metrics"].update(depth_metrics(row["depth_ranking"]["doc_ids"], row["qrels"],
                                        Conventions.declared(deep.contract.measures)))
    data = rows_bytes(rows)
    rows_path.write_bytes(data)
    aggregate = json.loads(aggregate_path.read_bytes())
    aggregate.update(per_query_sha256=sha256_bytes(data), metrics=aggregate_metrics(rows, 10))
    aggregate_path.write_text(json.dumps(aggregate, indent=1), encoding="utf-8")
    return validate(aggregate_path, embeddings=False, archive=deep.archive)


def _cut(size: int) -> Any:
    def change(row: Row, deep: DeepRun) -> None:
        entry = row["depth_ranking"]
        entry["doc_ids"], entry["scores"] = entry["doc_ids"][:size], entry["scores"][:size]
    return change


def _one_more(row: Row, deep: DeepRun) -> None:
    entry = row["depth_ranking"]
    extra = next(d["doc_id"] for d in deep.fixture.data["documents"] if d["doc_id"] not in entry["doc_ids"])
    entry["doc_ids"].append(extra)
    entry["scores"].append(entry["scores"][-1])


@pytest.mark.parametrize("mode", ["fts_only", "vector_only", "hybrid"])
@pytest.mark.parametrize("size", [10, 99])
def test_a_depth_list_cut_short_is_refused_by_the_replay(mode: str, size: int, deep: DeepRun, tmp_path: Path) -> None:
    report = _forged(deep, tmp_path, mode, _cut(size))
    statuses = _statuses(report)
    assert statuses["replay.depth"] == "fail", report.lines()
    assert {statuses[name] for name in ("rows.depth_ranking", "rows.depth_metrics", "aggregate.depth")} == {"pass"}


def test_a_depth_list_of_101_documents_is_refused_by_the_row_schema(deep: DeepRun, tmp_path: Path) -> None:
    """The schema holds a depth list to 100 documents before any depth check reads it."""
    report = _forged(deep, tmp_path, "vector_only", _one_more)
    assert [c.name for c in report.failed] == ["rows.schema"], report.lines()
