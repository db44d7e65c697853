"""Milvus (embedded Milvus Lite, the real engine, no mock) as the system under test on the tiny corpus: the three
modes, validated; the dense lane the built-in system's ranking exactly; builds idempotent, resumable and refusing;
a forged row refused through the live system; without the live system, not verified."""

import dataclasses
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.scale.synthetic import generate
from harness.corpus.contract import Contract
from harness.evaluation.measures.aggregate import aggregate_metrics
from harness.evaluation.measures.metrics import Conventions, depth_metrics
from harness.evaluation.receipts.artifacts import rows_bytes
from harness.evaluation.receipts.locations import LOCATIONS_NAME, STORES, hinted
from harness.evaluation.run_split import Evaluation, run_split
from harness.evaluation.runner import ModeRun
from harness.evaluation.system_replay import ReplayInputError, replay
from harness.fixture.corpus_fixture import CorpusFixture
from harness.hashing import sha256_bytes
from harness.modes import SEARCHED as MODES
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.milvus import settings
from harness.systems.milvus.collection import MilvusAnswerError, MilvusMismatchError, connect
from harness.systems.milvus.system import MilvusSystem
from harness.systems.plugin.adapter import corpus_of
from harness.systems.registry.select import make_builder
from harness.validator.pipeline import validate

from .test_plugin_system import _forge_first_row

pytestmark = pytest.mark.extra("milvus")

GIT = {"source.git", "source.clean"}


@pytest.fixture(scope="module")
def milvus_runs(tiny_corpus: CorpusFixture, tmp_path_factory: pytest.TempPathFactory) -> dict[str, ModeRun]:
    from fixtures.archives import tiny_contract

    root = tmp_path_factory.mktemp("milvus")
    runs = run_split(Evaluation(corpus=tiny_corpus.path, store_dir=root / "store", output_dir=root / "out",
                                split="calibration", system="milvus"), tiny_contract())
    return {run.mode: run for run in runs}


def test_every_mode_runs_and_validates(milvus_runs: dict[str, ModeRun]) -> None:
    assert sorted(milvus_runs) == sorted(MODES)
    for mode, run in milvus_runs.items():
        report = validate(run.aggregate_path)
        problems = [c.line() for c in report.checks if c.status != "pass" and c.name not in GIT]
        assert not problems, "\n".join(problems)
        through = [a for a in report.attestations if a.name == "replay.through_system"]
        assert bool(through) == (mode != "vector_only"), mode  # the dense lane alone is replayed independently
        lanes = report.notes["lane_verification"]
        independent, by_system = "recomputed independently from the fixture's vectors", (
            "replayed through the live system, not independently recomputed")
        assert lanes == {"fts_only": {"lexical": by_system}, "vector_only": {"dense": independent},
                         "hybrid": {"lexical": by_system, "fusion": by_system, "dense": independent}}[mode], lanes
        receipt = run.aggregate["receipt"]
        assert receipt["system"]["engine"]["name"] == "milvus-lite" and set(receipt["store"]["parts"]) == {
            "milvus-lite"}
        assert run.aggregate["metrics"]["failures"] == 0
        assert run.aggregate["metrics"]["depth_ranking"] == {"depth": 100, "failures": 0, "top_k_prefix_differs": 0}
        assert next(c for c in report.checks if c.name == "replay.depth").status == "pass"


def test_the_dense_lane_is_the_builtin_systems_exact_ranking(milvus_runs: dict[str, ModeRun], tiny: Contract,
                                                             tiny_corpus: CorpusFixture, tmp_path: Path) -> None:
    [builtin] = run_split(Evaluation(corpus=tiny_corpus.path, store_dir=tmp_path / "store", output_dir=tmp_path / "o",
                                     split="calibration", modes=("vector_only",)), tiny)

    def ranked(run: ModeRun) -> list[list[str]]:
        return [json.loads(line)["ranked_doc_ids"] for line in run.rows_path.read_text().splitlines()]
    assert ranked(milvus_runs["vector_only"]) == ranked(builtin)


def test_hybrid_fuses_the_lanes_it_reports(milvus_runs: dict[str, ModeRun]) -> None:
    for line in milvus_runs["hybrid"].rows_path.read_text().splitlines():
        for result in json.loads(line)["results"]:
            lanes = result["lanes"]
            fused = sum(1.0 / (60 + lanes[n]["rank"]) for n in ("lexical", "dense") if lanes[n]["rank"] is not None)
            assert abs(fused - result["score"]) <= 2.0 ** -23 * fused


def test_a_forged_row_is_refused_through_the_live_system(milvus_runs: dict[str, ModeRun], tmp_path: Path) -> None:
    original = milvus_runs["fts_only"]
    copy = tmp_path / "out"
    shutil.copytree(original.aggregate_path.parent, copy)
    run = ModeRun("fts_only", "calibration", copy / original.rows_path.name, copy / original.aggregate_path.name,
                  original.aggregate, None)
    _forge_first_row(run)
    report = validate(run.aggregate_path)
    failed = next(c for c in report.failed if c.name == "replay.lexical")
    assert "the system answers" in str(failed.found)


def _store(run: ModeRun) -> Path:
    """The run's store, where its output directory's locations.json places it (the receipt names it by digest)."""
    store = hinted(run.aggregate_path.parent, STORES, run.aggregate["receipt"]["store"]["store_sha256"])
    assert store is not None
    return store


def test_without_the_live_system_the_lexical_lane_is_not_verified(milvus_runs: dict[str, ModeRun],
                                                                  tmp_path: Path) -> None:
    store = _store(milvus_runs["fts_only"])
    moved = tmp_path / "elsewhere"
    shutil.copytree(store, moved)
    shutil.rmtree(moved / settings.LITE_FILE)
    report = validate(milvus_runs["fts_only"].aggregate_path, store_dir=moved)
    assert {"replay.lexical", "replay.depth"} <= {c.name for c in report.not_verified} and not report.eligible


def test_a_forged_depth_ranking_is_refused_through_the_live_system(milvus_runs: dict[str, ModeRun],
                                                                   tmp_path: Path) -> None:
    original = milvus_runs["hybrid"]
    copy = tmp_path / "out"
    shutil.copytree(original.aggregate_path.parent, copy)
    rows_path, aggregate_path = copy / original.rows_path.name, copy / original.aggregate_path.name
    rows = [json.loads(line) for line in rows_path.read_text(encoding="utf-8").splitlines()]
    depth = rows[0]["depth_ranking"]
    depth["doc_ids"][1], depth["doc_ids"][2] = depth["doc_ids"][2], depth["doc_ids"][1]
    measures = Conventions.declared(original.aggregate["receipt"]["measures"])
    rows[0]["metrics"].update(depth_metrics(depth["doc_ids"], rows[0]["qrels"], measures))
    data = rows_bytes(rows)
    rows_path.write_bytes(data)
    aggregate = json.loads(aggregate_path.read_text(encoding="utf-8"))
    aggregate.update(per_query_sha256=sha256_bytes(data), metrics=aggregate_metrics(rows, 10))
    aggregate_path.write_text(json.dumps(aggregate), encoding="utf-8")
    failed = next(c for c in validate(aggregate_path).failed if c.name == "replay.depth")
    assert f"mode hybrid, query {rows[0]['query_id']}, depth rank 2: the row has" in str(failed.found), failed.found
    assert "the live system answers" in str(failed.found)


def test_milvus_depth_100_list_begins_with_its_top_10(tmp_path: Path) -> None:
    """On 400 synthetic documents, deeper than the top 10: the engine's own lanes and hybrid_search at top_k 100."""
    corpus = generate(400, seed=3, queries=6)
    system = MilvusSystem()
    (tmp_path / "milvus").mkdir()
    system.build(corpus.corpus(), tmp_path / "milvus")
    try:
        for mode in MODES:
            for text, vector in zip(corpus.query_texts, corpus.query_vectors, strict=True):
                given = vector if mode != "fts_only" else None
                top, deep = system.search(mode, text, given, 10), system.search(mode, text, given, 100)
                assert deep[:10] == top, (mode, text)
                assert len(deep) > 10 or len(top) < 10, (mode, len(deep))
    finally:
        system.close()


def test_a_rebuild_changes_nothing_and_another_configuration_is_refused(
        milvus_runs: dict[str, ModeRun], tiny_corpus: CorpusFixture, tiny: Contract,
        monkeypatch: pytest.MonkeyPatch) -> None:
    store = _store(milvus_runs["vector_only"])
    builder = make_builder(tiny.namespace, SearchConfig(), "milvus")
    try:
        system, changed = builder.build(tiny_corpus, store)
        assert not changed and system.sha256 == milvus_runs["vector_only"].aggregate["receipt"]["store"][
            "store_sha256"]
    finally:
        builder.close()
    monkeypatch.setattr(settings, "RRF_K", 61)  # here, in this process: the system itself, without a worker
    plugin = MilvusSystem()
    with pytest.raises(MilvusMismatchError, match="built from another configuration"):
        plugin.build(corpus_of(tiny_corpus, tiny.namespace), store)
    plugin.close()


def test_an_interrupted_build_resumes_and_another_fixture_is_refused(tiny_corpus: CorpusFixture, tiny: Contract,
                                                                      tmp_path: Path) -> None:
    plugin = MilvusSystem()
    corpus = corpus_of(tiny_corpus, tiny.namespace)
    partial = connect(str(tmp_path / settings.LITE_FILE), None, lite=True)  # a build stopped after three documents
    partial._create(plugin._marker(corpus), corpus.dimensions)
    partial.client.insert(partial.name, [{"fact_id": i + 1, "doc_id": corpus.doc_ids[i], "text": corpus.texts[i],
                                          "dense": corpus.vectors[i].tolist()} for i in range(3)])
    partial.close()
    with pytest.raises(MilvusMismatchError, match=f"holds 3 of {len(corpus.doc_ids)} documents"):
        plugin.open(corpus, tmp_path)
    assert plugin.build(corpus, tmp_path) is True
    plugin.open(corpus, tmp_path)  # complete now
    assert plugin.build(corpus, tmp_path) is False
    with pytest.raises(MilvusMismatchError, match="built from another fixture"):
        plugin.build(dataclasses.replace(corpus, fixture_sha256="sha256:" + "0" * 64), tmp_path)


def test_a_milvus_uri_for_the_builtin_system_is_refused_in_one_line(tiny_corpus: CorpusFixture,
                                                                     tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "fixtures.tiny_cli", "run", "--corpus", str(tiny_corpus.path),
                           "--store-dir", str(tmp_path / "s"), "--output-dir", str(tmp_path / "o"), "--split",
                           "calibration", "--milvus-uri", "http://127.0.0.1:9"], capture_output=True, text=True,
                          timeout=300, cwd=Path(__file__).resolve().parent.parent)
    assert done.returncode == 2 and done.stderr.strip().splitlines() == [
        "error: the built-in system takes no options (uri)"]


def test_the_replay_refuses_a_system_other_than_the_receipts(milvus_runs: dict[str, ModeRun], tiny: Contract,
                                                             tiny_corpus: CorpusFixture, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Asking a differently configured system again would prove nothing about the run: the replay refuses it."""
    original = milvus_runs["fts_only"]
    aggregate = json.loads(original.aggregate_path.read_text(encoding="utf-8"))
    aggregate["receipt"]["system"]["version"] = "9.9.9"  # the collection's marker says nothing of the version
    (tmp_path / original.rows_path.name).write_bytes(original.rows_path.read_bytes())
    shutil.copy2(original.aggregate_path.parent / LOCATIONS_NAME, tmp_path / LOCATIONS_NAME)
    (tmp_path / original.aggregate_path.name).write_text(json.dumps(aggregate), encoding="utf-8")
    with pytest.raises(ReplayInputError, match="not the one the receipt names: its version differ"):
        replay(tmp_path / original.aggregate_path.name)
    configured = MilvusSystem.configuration  # the engine's own marker refuses another configuration
    monkeypatch.setattr(MilvusSystem, "configuration", lambda self: {**configured(self), "hybrid": {"k": 61}})
    plugin = MilvusSystem()
    with pytest.raises(MilvusMismatchError, match="built from another configuration"):
        plugin.open(corpus_of(tiny_corpus, tiny.namespace),
                    _store(original))
    plugin.close()


def test_a_score_convention_read_wrongly_is_an_error_not_a_reversed_ranking(milvus_runs: dict[str, ModeRun]) -> None:
    store = _store(milvus_runs["fts_only"])
    collection = connect(str(store / settings.LITE_FILE), None, lite=True)
    try:
        collection.load()
        assert collection.lite_engine and collection.version.startswith("milvus_lite")
        best_first = collection.lexical("aspirin platelet vitamin bone statins cholesterol", 10)
        assert len(best_first) > 1 and best_first[0][1] > best_first[-1][1]
        collection.lite_engine = False  # as if the engine were a server reporting the relevance itself
        with pytest.raises(MilvusAnswerError, match="its score convention is not the one this system assumes"):
            collection.lexical("aspirin platelet vitamin bone statins cholesterol", 10)
    finally:
        collection.close()
