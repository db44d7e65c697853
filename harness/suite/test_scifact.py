"""The evaluation itself: one test per mode and split, emitting the artifacts. SciFact's unless --scifact-dataset NAME
or --scifact-contract FILE names another dataset; the split sizes and top_k are the contract's, and the quality bars
and MTEB parity are SciFact's alone.

`pytest -m calibration` diagnoses; `pytest -m heldout --scifact-spend-heldout` runs once the configuration is frozen;
`pytest -m final --scifact-spend-heldout` writes the all-query receipts after the held-out ones and checks the
quality bars; `pytest -m parity --scifact-spend-heldout` checks the harness against MTEB's published numbers (without
--scifact-spend-heldout the last three are held back, heldout_gate.py).
Uses the archive given by --scifact-archive=PATH or SCIFACT_ARCHIVE, else downloads BEIR's.

A calibration rerun moves the earlier artifact pair to OUTPUT/superseded/. A held-out (or all-query)
rerun does not: the store's history allows one held-out run per mode after the freeze, so a second
`pytest -m heldout --scifact-spend-heldout` on the same store fails each test with the refusal, before anything is
written.
"""

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.cli.summary import SUMMARY_PROPERTY, result_line, verdict
from harness.corpus.contract import Contract, scifact_contract
from harness.corpus.split import select, selected_ids_sha256
from harness.embedding.embedders.select import make_embedder
from harness.embedding.profiles import text_profile
from harness.errors import HarnessError
from harness.evaluation.receipts.locations import place_archive
from harness.evaluation.run_split import Evaluation, run_split
from harness.evaluation.runner import ModeRun
from harness.fixture.build import BuildReport
from harness.fixture.corpus_fixture import CorpusFixture, load_fixture
from harness.hashing import sha256_bytes
from harness.modes import SEARCHED
from harness.suite import options
from harness.suite.fixtures import configured_archive, failed
from harness.suite.quality_bars import MTEB_MINILM_NDCG10, QualityBars
from harness.suite.session import locked_build
from harness.systems.fusion import LaneStatistics, fused_score
from harness.systems.protocol import SystemUnderTest
from harness.validator.stored import Options, Subject, validate_stored

RecordProperty = Callable[[str, object], None]  # pytest's record_property fixture


def _run(mode: str, split: str, corpus: CorpusFixture, system: SystemUnderTest, output_dir: Path,
         contract: Contract) -> ModeRun:
    """The CLI's entry point, given the session's fixture and system: 'all' after held-out receipts; held-out
    and 'all' match the freeze and are in turn in the store's history (a refusal fails the test with its
    message, and nothing is written)."""
    if mode not in system.modes:
        pytest.skip(f"the system under test ({system.identity().name}) does not offer {mode}")
    evaluation = Evaluation(corpus=corpus.path, store_dir=system.state_directory, output_dir=output_dir,
                            split=split, modes=(mode,), replace=True, argv=tuple(sys.argv))
    try:
        [run] = run_split(evaluation, contract, fixture=corpus, system=system)
    except HarnessError as exc:
        raise failed(exc) from None
    return run


GIT_CHECKS = {"source.git", "source.clean"}


def check_validates(run: ModeRun, record_property: RecordProperty, archive: Path | None = None) -> None:
    """The independent validator decides: every check passes, git state aside while the work tree is
    dirty; from a clean checkout (as in CI) the run must be eligible for a claim. The result line and the
    verdict go to the session's terminal summary (conftest.py), from xdist workers too. `archive`: the dataset's zip,
    for the validator to re-derive the fixture from (a collection pinned by nothing else needs it)."""
    report = validate_stored(Subject(run.aggregate_path), Options(archive=archive))
    line = result_line(run.aggregate, run.aggregate_path, verdict(report))
    record_property(SUMMARY_PROPERTY, {"split": run.split, "mode": run.mode, "line": line})
    failing = [check.line() for check in report.checks if check.status != "pass" and check.name not in GIT_CHECKS]
    assert not failing, "\n".join(failing)
    git = run.aggregate["receipt"]["source"]["git"]
    if git.get("available") and git.get("dirty") is False:
        assert report.eligible, report.verdict() + "\n" + "\n".join(c.line() for c in report.failed)


def _fused_as_declared(reported: float, recomputed: float, float32_fusion: bool) -> bool:
    """Exactly the declared fusion's float64 score, or within two float32 ulps for a system that declares RRF summed
    in float32 (Milvus)."""
    if float32_fusion:
        return abs(reported - recomputed) <= 2.0 ** -23 * abs(recomputed)
    return reported == recomputed


def check_fusion(row: dict[str, Any], fusion: dict[str, Any]) -> None:
    """Every result of a hybrid row: its fused score is the fusion the system declares (method, k or weight and
    normalisation, candidate depth), recomputed from its lane evidence and the row's lane statistics."""
    recorded = row["search_receipt"]["lanes"]["fusion"]
    assert {key: recorded[key] for key in fusion if key != "score_dtype"} == {
        key: value for key, value in fusion.items() if key != "score_dtype"}, (recorded, fusion)
    statistics = {lane: LaneStatistics.from_record(found) for lane, found in recorded.get("statistics", {}).items()}
    for result in row["results"]:
        lanes = {lane: (result["lanes"][lane]["rank"], result["lanes"][lane]["score"]) for lane in ("lexical", "dense")}
        assert all(rank is None or 1 <= rank <= fusion["candidate_depth"] for rank, _ in lanes.values()), lanes
        assert result["lanes"]["fusion"]["fused_score"] == result["score"]
        assert result["lanes"]["fusion"]["method"] == fusion["method"]
        expected = fused_score(fusion, lanes, statistics or None)
        assert _fused_as_declared(result["score"], expected, fusion.get("score_dtype") == "float32"), (
            row["query_id"], result["doc_id"], result["score"], expected)


def check_invariants(run: ModeRun, corpus: CorpusFixture, system: SystemUnderTest,
                     contract: Contract) -> list[dict[str, Any]]:
    """What must hold for any run; the independent validator checks far more."""
    data = run.rows_path.read_bytes()
    rows = [json.loads(line) for line in data.splitlines()]
    aggregate = json.loads(run.aggregate_path.read_bytes())
    query_ids = [q["query_id"] for q in corpus.data["queries"]]
    expected_ids = select(query_ids, run.split, contract.calibration_count)
    assert [row["query_id"] for row in rows] == expected_ids
    assert aggregate["row_count"] == len(rows) and aggregate["per_query_sha256"] == sha256_bytes(data)
    assert aggregate["receipt"]["split"]["selected_ids_sha256"] == selected_ids_sha256(expected_ids)
    metrics = aggregate["metrics"]
    assert metrics["failures"] == 0, [row["error"] for row in rows if row["error"]]
    assert metrics["result_count_distribution"] == {str(contract.top_k): len(rows)}
    store_receipt = aggregate["receipt"]["store"]
    assert store_receipt["before_run_sha256"] == store_receipt["after_run_sha256"] == system.sha256
    identity = system.identity()  # hashes the system's source: once per run, not once per result
    assert aggregate["receipt"]["system"] == identity.record()
    assert aggregate["receipt"]["profile"]["is_contract"] is True
    if options.is_scifact(contract):  # on SciFact every mode of any sane system is far above it
        assert metrics["ndcg_at_10"] > 0.3, "a degenerate run"
    for row in rows:
        assert [r["rank"] for r in row["results"]] == list(range(1, contract.top_k + 1))
        assert [r["doc_id"] for r in row["results"]] == row["ranked_doc_ids"]
        if run.mode == "vector_only":
            evidence = row["search_receipt"]["lanes"]["dense"]
            assert evidence["exact"] is True and evidence["candidates_scored"] == len(corpus.data["documents"])
        if run.mode == "hybrid":
            check_fusion(row, identity.declarations["fusion"])
    return rows


def _archive(config: pytest.Config, output_dir: Path, corpus: CorpusFixture) -> Path | None:
    """The session's archive placed in the output directory's locations.json, where compare, report and bundle find
    it too; what the validation is to name (None once placed)."""
    return place_archive(output_dir, corpus, configured_archive(config, options.session_dataset(config)))


def _count(contract: Contract, split: str) -> int:
    """The queries of `split` under the contract's rule: calibration N, held out the rest, all every judged one."""
    return {"calibration": contract.calibration_count, "heldout": contract.test_queries - contract.calibration_count,
            "all": contract.test_queries}[split]


@pytest.mark.parametrize("split", [pytest.param("calibration", marks=pytest.mark.calibration),
                                   pytest.param("heldout", marks=pytest.mark.heldout)])
@pytest.mark.parametrize("mode", SEARCHED)
def test_split(mode: str, split: str, scifact_corpus: CorpusFixture, scifact_system: SystemUnderTest,
               output_dir: Path, record_property: RecordProperty, pytestconfig: pytest.Config) -> None:
    contract = options.session_contract(pytestconfig)
    run = _run(mode, split, scifact_corpus, scifact_system, output_dir, contract)
    assert len(check_invariants(run, scifact_corpus, scifact_system, contract)) == _count(contract, split)
    check_validates(run, record_property, _archive(pytestconfig, output_dir, scifact_corpus))


@pytest.mark.final
def test_final_and_quality_bars(scifact_corpus: CorpusFixture, scifact_system: SystemUnderTest, output_dir: Path,
                                record_property: RecordProperty, quality_bars: QualityBars,
                                pytestconfig: pytest.Config) -> None:
    """The all-query receipts (after the held-out ones), then the quality bars (quality_bars.py): the
    built-in system's are MTEB's (fts_only within 0.01 of bm25s; vector_only below 0.645, since the 700-code-point
    ceiling cuts abstracts; hybrid above both lanes); another system is held to the bars declared with
    --scifact-quality-bar MODE=VALUE, and without one the test skips, saying so. One test, so the bars never read
    receipts another worker is writing."""
    ndcg, contract = {}, options.session_contract(pytestconfig)
    for mode in (m for m in SEARCHED if m in scifact_system.modes):
        run = _run(mode, "all", scifact_corpus, scifact_system, output_dir, contract)
        assert len(check_invariants(run, scifact_corpus, scifact_system, contract)) == _count(contract, "all")
        check_validates(run, record_property, _archive(pytestconfig, output_dir, scifact_corpus))
        ndcg[mode] = run.aggregate["metrics"]["ndcg_at_10"]
    quality_bars(scifact_system.identity().name, ndcg)


@pytest.mark.parity
def test_mteb_parity(pytestconfig: pytest.Config, scifact_build: BuildReport, work_dir: Path,
                     tmp_path: Path) -> None:
    """Under MTEB's encoding (no prefixes, no ceiling, the model's 256-token truncation), vector_only on
    all 300 queries reproduces MTEB's published all-MiniLM-L6-v2 nDCG@10 within 0.002. The receipts say
    mteb-parity and is_contract false: a proof that the harness measures correctly, never a result."""
    contract = scifact_contract()
    if not options.is_scifact(options.session_contract(pytestconfig)):
        pytest.skip(f"MTEB parity is SciFact's (MTEB's published all-MiniLM-L6-v2 figure); this session evaluates "
                    f"{options.session_dataset(pytestconfig)}")
    embedder = make_embedder(pytestconfig.getoption(options.EMBEDDER), pytestconfig.getoption(options.MODEL))
    report = locked_build(contract, work_dir=work_dir, embedder=embedder, archive=scifact_build.archive,
                          out=work_dir / "scifact-corpus-mteb-parity.json",
                          profile=text_profile("mteb-parity", contract))
    corpus = load_fixture(report.fixture)
    # A store of its own for this run: a store is bound to one fixture, and the parity fixture changes
    # whenever the model's identity does (a library upgrade, say).
    [run] = run_split(Evaluation(corpus=report.fixture, store_dir=tmp_path / "store-mteb-parity",
                                 output_dir=work_dir / "results-mteb-parity", split="all", modes=("vector_only",),
                                 replace=True, argv=tuple(sys.argv)), contract, fixture=corpus)
    profile = run.aggregate["receipt"]["profile"]
    assert (profile["name"], profile["is_contract"]) == ("mteb-parity", False)
    assert run.aggregate["row_count"] == 300 and run.aggregate["metrics"]["failures"] == 0
    ndcg = run.aggregate["metrics"]["ndcg_at_10"]
    assert abs(ndcg - MTEB_MINILM_NDCG10) <= 0.002, f"nDCG@10 {ndcg:.5f}, MTEB publishes {MTEB_MINILM_NDCG10}"
