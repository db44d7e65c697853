"""A hybrid's fusion is the one its system declares, end to end on the tiny corpus: systems declaring RRF with k 30,
and convex fusions (min-max, and z-score at another weight and depth) run, record their fusion (a convex one with its
lanes' statistics), have every fused score recomputed by the suite's check and by the validator, which passes them;
one fused score edited by a careful forger (every digest resealed) is refused by the validator's rows.fusion, naming
the query, rank, doc id and field; a fusion declared with a field it does not take is refused before any query,
naming the field and what the fusion takes. On SciFact (the real archive and its fixture), the RRF k 30 system and
the convex example pass the suite's own checks of a hybrid calibration run and are eligible, and a forged fused score
of each is refused."""

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from fixtures.clean_checkout import mark_clean_checkout
from fixtures.deep_collection import deep_fixture
from harness.corpus.contract import Contract, scifact_contract
from harness.embedding.embedders.local import LocalEmbedder
from harness.evaluation.measures.aggregate import aggregate_metrics
from harness.evaluation.receipts.artifacts import rows_bytes
from harness.evaluation.receipts.identity_check import SystemDeclarationError
from harness.evaluation.run_split import Evaluation, run_split
from harness.evaluation.runner import ModeRun
from harness.fixture.corpus_fixture import CorpusFixture
from harness.hashing import sha256_bytes
from harness.publish.report.report_data import load_report_data
from harness.publish.report.report_markdown import render_markdown
from harness.suite.test_scifact import check_fusion, check_invariants
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.fusion import LANES as LANE_ORDER
from harness.systems.fusion import LaneStatistics, fused_score
from harness.systems.registry.select import make_builder
from harness.validator.pipeline import validate
from test_validate.forger import reseal_row

ROOT = Path(__file__).resolve().parent.parent
GIT = {"source.git", "source.clean"}  # the work tree may have changes; a clean clone's receipts would pass them
UNASKED = GIT | {"embeddings.model"}  # and the re-embedding is not asked for here
SYSTEMS = '''
from typing import Any, ClassVar

from convex_hybrid import ConvexHybrid


class Rrf30(ConvexHybrid):
    name = "rrf30-hybrid"
    declarations: ClassVar[dict[str, Any]] = {"dense": "exact_inner_product",
                                              "fusion": {"method": "rrf", "k": 30, "candidate_depth": 100}}


class ZScore(ConvexHybrid):
    name = "zscore-hybrid"
    declarations: ClassVar[dict[str, Any]] = {
        "dense": "exact_inner_product",
        "fusion": {"method": "convex", "weight": 0.3, "normalisation": "z-score", "candidate_depth": 6}}


class Alpha(ConvexHybrid):
    name = "alpha-hybrid"
    declarations: ClassVar[dict[str, Any]] = {
        "dense": "exact_inner_product",
        "fusion": {"method": "convex", "weight": 0.5, "normalisation": "min-max", "candidate_depth": 100, "alpha": 1}}


RRF30, ZSCORE, ALPHA = Rrf30(), ZScore(), Alpha()
'''
SPECS = {"rrf30": "fusion_systems:RRF30", "convex": "convex_hybrid:SYSTEM", "z-score": "fusion_systems:ZSCORE"}


@pytest.fixture
def fusion_systems(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "fusion_systems.py").write_text(SYSTEMS, encoding="utf-8")
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    monkeypatch.syspath_prepend(str(tmp_path / "plugins"))
    for name in [n for n in sys.modules if n in ("convex_hybrid", "fusion_systems")]:
        monkeypatch.delitem(sys.modules, name)


def _hybrid(corpus: CorpusFixture, tiny: Contract, root: Path, spec: str) -> ModeRun:
    [run] = run_split(Evaluation(corpus=corpus.path, store_dir=root / "store", output_dir=root / "out",
                                 split="calibration", modes=("hybrid",), system=spec), tiny)
    return run


def _rows(run: ModeRun) -> list[dict[str, Any]]:
    return [json.loads(line) for line in run.rows_path.read_bytes().splitlines()]


def forge_fused_score(run: ModeRun) -> tuple[str, int, str]:
    """One result's fused score moved halfway to the one above it (the order kept), its row's digests, the rows
    file's digest and the aggregate resealed as the runner writes them. Returns (query id, rank, doc id)."""
    rows = _rows(run)
    row, rank = next((row, rank) for row in rows for rank in range(2, len(row["results"]) + 1)
                     if row["results"][rank - 2]["score"] > row["results"][rank - 1]["score"])
    result = row["results"][rank - 1]
    forged = (row["results"][rank - 2]["score"] + result["score"]) / 2
    result["score"] = result["lanes"]["fusion"]["fused_score"] = forged
    reseal_row(row)
    data = rows_bytes(rows)
    run.rows_path.write_bytes(data)
    aggregate = json.loads(run.aggregate_path.read_bytes())
    aggregate.update(per_query_sha256=sha256_bytes(data), metrics=aggregate_metrics(rows, 10))
    run.aggregate_path.write_text(json.dumps(aggregate, indent=1), encoding="utf-8")
    return row["query_id"], rank, result["doc_id"]


def _refused_naming_the_field(run: ModeRun, method: str) -> None:
    query, rank, doc_id = forge_fused_score(run)
    report = validate(run.aggregate_path, embeddings=False)
    [fusion] = [c for c in report.checks if c.name == "rows.fusion"]
    assert fusion.status == "fail" and not report.eligible
    assert (f"query {query}, rank {rank} ({doc_id}): results[{rank - 1}].lanes.fusion.fused_score is not the "
            f"{method} fusion of its lanes") in fusion.detail, fusion.line()
    # the live system, asked again, answers the genuine score too (the lanes it is the only witness of)
    through = {"replay.lexical", "replay.fusion"}
    assert {c.name for c in report.checks if c.status == "fail"} <= {"rows.fusion", *through, *GIT}, [
        c.line() for c in report.failed]


@pytest.mark.usefixtures("fusion_systems")
@pytest.mark.parametrize("which", SPECS)
def test_a_declared_fusion_is_recomputed_as_declared_and_a_forged_fused_score_is_refused(
        which: str, tiny_corpus: CorpusFixture, tiny: Contract, tmp_path: Path) -> None:
    run = _hybrid(tiny_corpus, tiny, tmp_path, SPECS[which])
    declared = run.aggregate["receipt"]["system"]["declarations"]["fusion"]
    rows = _rows(run)
    for row in rows:
        check_fusion(row, declared)  # the suite's own check, reading the declaration
        recorded = row["search_receipt"]["lanes"]["fusion"]
        assert ("statistics" in recorded) == (declared["method"] == "convex")
    if declared.get("normalisation") == "z-score":
        assert any(r["score"] < 0 for row in rows for r in row["results"]), "z-scores below the mean are negative"
        assert all(row["search_receipt"]["lanes"]["fusion"]["statistics"]["dense"]["candidates"] == 6 for row in rows)
        # the report states the declared fusion and counts the lanes at the declared candidate depth
        markdown = render_markdown(load_report_data(run.aggregate_path.parent, validated=False, freeze=None))
        assert ("fusion by a convex combination of z-score normalised lane scores (dense weight 0.3, lexical 0.7, "
                "candidate depth 6)") in markdown
        assert "top 6: lexical only" in markdown and "top 100" not in markdown
    report = validate(run.aggregate_path, embeddings=False)
    problems = [c.line() for c in report.checks if c.status != "pass" and c.name not in UNASKED]
    assert not problems, "\n".join(problems)
    passed = {c.name: c.detail for c in report.checks if c.status == "pass"}
    assert f"({declared['method']}, " in passed["rows.fusion"] and "replay.dense" in passed

    _refused_naming_the_field(run, declared["method"])


@pytest.mark.real_data
@pytest.mark.usefixtures("fusion_systems", "scifact_archive")
@pytest.mark.parametrize("which", ["rrf30", "convex"])
def test_on_scifact_a_declared_fusion_passes_the_suites_checks_and_is_eligible(
        which: str, scifact_corpus: CorpusFixture, tmp_path: Path) -> None:
    contract, store, out = scifact_contract(), tmp_path / "store", tmp_path / "out"
    builder = make_builder(contract.namespace, SearchConfig(), SPECS[which])
    try:
        system, _ = builder.build(scifact_corpus, store)
        [run] = run_split(Evaluation(corpus=scifact_corpus.path, store_dir=store, output_dir=out, split="calibration",
                                     modes=("hybrid",)), contract, fixture=scifact_corpus, system=system)
        assert len(check_invariants(run, scifact_corpus, system, contract)) == 100  # the suite's own checks of any run
    finally:
        builder.close()
    mark_clean_checkout(out)
    report = validate(run.aggregate_path)
    assert report.eligible, "\n".join(c.line() for c in report.checks if c.status != "pass")
    declared = run.aggregate["receipt"]["system"]["declarations"]["fusion"]
    assert declared == ({"method": "rrf", "k": 30, "candidate_depth": 100} if which == "rrf30" else
                        {"method": "convex", "weight": 0.6, "normalisation": "min-max", "candidate_depth": 100})
    _refused_naming_the_field(run, declared["method"])


@pytest.fixture(scope="module")
def deep(local_embedder: LocalEmbedder, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Contract,
                                                                                           CorpusFixture]:
    return deep_fixture(tmp_path_factory.mktemp("deep-fusion"), local_embedder)


@pytest.mark.usefixtures("fusion_systems")
@pytest.mark.parametrize("which", ["rrf30", "convex"])
def test_on_a_collection_deeper_than_100_a_declared_fusion_passes_the_suites_checks_and_the_validator(
        which: str, deep: tuple[Path, Contract, CorpusFixture], tmp_path: Path) -> None:
    """The stand-in for the SciFact test above in the default suite: 160 documents, so the candidate depth of 100
    cuts each lane, and the convex fusion's statistics are over 100 candidates, not the whole collection."""
    archive, contract, corpus = deep
    store, out = tmp_path / "store", tmp_path / "out"
    builder = make_builder(contract.namespace, SearchConfig(), SPECS[which])
    try:
        system, _ = builder.build(corpus, store)
        [run] = run_split(Evaluation(corpus=corpus.path, store_dir=store, output_dir=out, split="calibration",
                                     modes=("hybrid",)), contract, fixture=corpus, system=system)
        assert len(check_invariants(run, corpus, system, contract)) == contract.calibration_count
    finally:
        builder.close()
    declared = run.aggregate["receipt"]["system"]["declarations"]["fusion"]
    assert declared["candidate_depth"] == 100 < len(corpus.data["documents"])
    if declared["method"] == "convex":
        assert {s["candidates"] for r in _rows(run) for s in r["search_receipt"]["lanes"]["fusion"]["statistics"]
                .values()} >= {100}
    report = validate(run.aggregate_path, embeddings=False, archive=archive)
    problems = [c.line() for c in report.checks if c.status != "pass" and c.name not in UNASKED]
    assert not problems, "\n".join(problems)
    _refused_naming_the_field(run, declared["method"])


@pytest.mark.usefixtures("fusion_systems")
def test_forged_lane_statistics_with_every_fused_score_recomputed_are_refused_by_the_dense_replay(
        tiny_corpus: CorpusFixture, tiny: Contract, tmp_path: Path) -> None:
    """The statistics a convex fusion normalised by are replayed too, where the validator replays the lane: the
    dense lane's at the declared candidate depth, from the fixture's vectors."""
    run = _hybrid(tiny_corpus, tiny, tmp_path, SPECS["z-score"])
    fusion = run.aggregate["receipt"]["system"]["declarations"]["fusion"]
    rows = _rows(run)
    row = rows[0]
    statistics = row["search_receipt"]["lanes"]["fusion"]["statistics"]
    statistics["dense"]["mean"] += 0.05  # and every fused score of the row made consistent with it
    stats = {lane: LaneStatistics.from_record(found) for lane, found in statistics.items()}
    for result in row["results"]:
        lanes = {lane: (result["lanes"][lane]["rank"], result["lanes"][lane]["score"]) for lane in LANE_ORDER}
        result["score"] = result["lanes"]["fusion"]["fused_score"] = fused_score(fusion, lanes, stats)
    row["results"].sort(key=lambda result: (-result["score"], result["doc_id"]))
    reseal_row(row)
    data = rows_bytes(rows)
    run.rows_path.write_bytes(data)
    aggregate = json.loads(run.aggregate_path.read_bytes())
    aggregate.update(per_query_sha256=sha256_bytes(data), metrics=aggregate_metrics(rows, 10))
    run.aggregate_path.write_text(json.dumps(aggregate, indent=1), encoding="utf-8")
    report = validate(run.aggregate_path, embeddings=False)
    checks = {c.name: c for c in report.checks}
    assert checks["rows.fusion"].status == "pass", checks["rows.fusion"].line()
    assert checks["replay.dense"].status == "fail" and (
        f"query {row['query_id']}: search_receipt.lanes.fusion.statistics.dense disagrees with the replayed dense "
        "lane's top 6: mean") in checks["replay.dense"].detail, checks["replay.dense"].line()


@pytest.mark.usefixtures("fusion_systems")
def test_a_fusion_declared_with_a_field_it_does_not_take_is_refused_naming_the_field(
        tiny_corpus: CorpusFixture, tiny: Contract, tmp_path: Path) -> None:
    with pytest.raises(SystemDeclarationError) as raised:
        _hybrid(tiny_corpus, tiny, tmp_path, "fusion_systems:ALPHA")
    message = str(raised.value)
    assert message.startswith("system 'alpha-hybrid' (--system 'fusion_systems:ALPHA') declares what the harness "
                              "cannot read: declarations.fusion: 'alpha' was unexpected; convex takes weight, "
                              "normalisation, candidate_depth"), message
    assert "one line of printable text" not in message
    assert not list((tmp_path / "out").glob("*.aggregate.json"))
