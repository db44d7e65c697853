"""The validator's checks of a run made outside the harness (mode run_file): its own reader orders each query as
trec_eval does (pytrec_eval agrees on tied runs); a row whose ranking is not the kept run file's fails
`ranking.run_file`, alone, when a careful forger reseals everything else; the file it reads is the one the receipts
bind; a file that does not read as a run is named. test_check_coverage.py counts RUN_FILE_VIOLATIONS as covered."""

import json
from pathlib import Path
from typing import Any

import pytest
import pytrec_eval

from fixtures.archives import tiny_archive
from harness.cli.app import main
from harness.fixture.corpus_fixture import load_fixture
from harness.validator.core.report import Report
from harness.validator.pipeline import validate
from harness.validator.ranking.run_file import Unreadable, read_rankings
from test_eval.test_evaluate_run_file import tied_run, write_trec

from . import forger
from .support import CleanRun, failed_names

RUN_FILE_VIOLATIONS = {"ranking.run_file": "test_a_row_that_is_not_the_run_files_fails_ranking_run_file_alone"}
NAME = "ranking.run_file"


@pytest.fixture
def evaluated(clean_run: CleanRun, tmp_path: Path) -> tuple[Path, Path]:
    """A tied run of the tiny corpus evaluated on calibration: its aggregate, and the archive to validate with."""
    archive = tiny_archive(tmp_path / "tiny.zip")
    tiny_corpus = load_fixture(clean_run.fixture_path)
    path = write_trec(tied_run(tiny_corpus), tmp_path / "overlap.trec")
    assert main(["evaluate", str(path), "--corpus", str(tiny_corpus.path), "--contract", str(tiny_contract_file()),
                 "--store-dir", str(tmp_path / "store"), "--output-dir", str(tmp_path / "out"), "--split",
                 "calibration", "--no-validate"]) == 0
    return tmp_path / "out" / "tiny-test-run_file-calibration.aggregate.json", archive


def tiny_contract_file() -> Path:
    return Path(__file__).resolve().parent.parent / "fixtures" / "tiny" / "contract.json"


def _rows(aggregate: Path) -> list[dict[str, Any]]:
    rows = aggregate.with_name(aggregate.name.removesuffix(".aggregate.json") + ".jsonl")
    return [json.loads(line) for line in rows.read_text(encoding="utf-8").splitlines()]


def _write(aggregate: Path, rows: list[dict[str, Any]]) -> None:
    from harness.evaluation.measures.aggregate import aggregate_metrics
    from harness.evaluation.receipts.artifacts import rows_bytes
    from harness.hashing import sha256_bytes
    data = rows_bytes(rows)
    aggregate.with_name(aggregate.name.removesuffix(".aggregate.json") + ".jsonl").write_bytes(data)
    document = json.loads(aggregate.read_text(encoding="utf-8"))
    document.update(per_query_sha256=sha256_bytes(data), metrics={**document["metrics"],
                                                                  **aggregate_metrics(rows, 10)})
    aggregate.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def _failed(report: Report) -> set[str]:
    return set(failed_names(report)) - {"source.clean", "source.git"}


def test_a_row_that_is_not_the_run_files_fails_ranking_run_file_alone(evaluated: tuple[Path, Path]) -> None:
    aggregate, archive = evaluated
    clean = validate(aggregate, archive=archive)
    assert not _failed(clean) and clean.notes["ranking"]["producers"] == ["overlap"]
    rows = _rows(aggregate)
    row = rows[0]
    last = row["results"][-1]
    last["score"] = last["score"] - 0.25  # still below the one before it: the order holds, the file says otherwise
    row["depth_ranking"]["scores"][len(row["results"]) - 1] = last["score"]
    forger.reseal_row(row)
    _write(aggregate, rows)
    report = validate(aggregate, archive=archive)
    assert _failed(report) == {NAME}, [c.line() for c in report.failed]
    [check] = [c for c in report.failed if c.name == NAME]
    assert f"query {row['query_id']}, rank {len(row['results'])}" in str(check.found)


def test_the_kept_file_rewritten_fails_it_too(evaluated: tuple[Path, Path]) -> None:
    aggregate, archive = evaluated
    kept = aggregate.parent.parent / "store" / "run.trec"
    kept.write_bytes(kept.read_bytes().replace(b" 0.0 overlap", b" 0.5 overlap", 1))
    assert {NAME, "store.parts", "store.live"} <= _failed(validate(aggregate, archive=archive))


def test_its_reader_orders_ties_as_pytrec_eval_does() -> None:
    qrels = {"q": {"B": 1}, "r": {"a": 1}}
    run = {"q": {"a": 1.0, "B": 1.0, "c": 1.0, "d": 2.0}, "r": {"a": 0.5, "b": 0.5}}
    lines = "".join(f"{q} Q0 {d} 1 {s} t\n" for q, docs in run.items() for d, s in docs.items())
    rankings = read_rankings(lines.encode(), "trec")
    assert [d for d, _ in rankings["q"]] == ["d", "c", "a", "B"] and [d for d, _ in rankings["r"]] == ["b", "a"]
    found = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
    for query, ranking in rankings.items():
        first = next(rank for rank, (doc, _) in enumerate(ranking, start=1) if doc in qrels[query])
        assert found[query]["recip_rank"] == 1 / first
    assert read_rankings(json.dumps(run).encode(), "json") == rankings


@pytest.mark.parametrize(("data", "fmt", "said"), [
    (b"q Q0 d 1 1.0\n", "trec", "line 1 has 5 fields"),
    (b"q Q0 d 1 nan t\n", "trec", "is not a number"),
    (b"q Q0 d 1 1e999 t\n", "trec", "is not a number"),
    (b"q Q0 d 1 1.0 t\nq Q0 d 2 0.5 t\n", "trec", "appears twice"),
    (b"q Q0 d 1 1.0 t\nq Q0 e 2 0.5 u\n", "trec", "2 run tags"),
    (b'{"q": {"d": NaN}}', "json", "NaN is not a number"),
    (b'{"q": {"d": 1, "d": 2}}', "json", "appears twice"),
    (b'{"q": {"d": true}}', "json", "does not map documents to finite numbers"),
    (b"\xff", "trec", "not UTF-8"),
])
def test_a_file_that_is_not_a_run_is_named(data: bytes, fmt: str, said: str) -> None:
    with pytest.raises(Unreadable, match=said):
        read_rankings(data, fmt)
