"""Consistent forgeries: every derived value re-derived with the project's own code, so only a replay from
primary data (the fixture, the live store, the model) can refuse them. Each names the check that must.

Rankings are replayed on every row; nothing is sampled, so no digest can be re-rolled to dodge a sample.
"""

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from fixtures.archives import tiny_archive, tiny_contract
from harness.embedding.cache import CachedVector, EmbeddingCache
from harness.embedding.embedders.local import LocalEmbedder
from harness.evaluation.run_split import Evaluation, run_split
from harness.fixture.build import build_fixture
from harness.fixture.corpus_fixture import load_fixture
from harness.publish.bundle import BundleError, make_bundle
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.store import store as store_module
from harness.systems.builtin.store.store import StoreIntegrityError, build_store
from harness.validator.core.report import Report
from harness.validator.pipeline import validate

from . import forger
from .support import CleanRun, RunCopy, describe, failed_names
from .test_bundle import as_clean_checkout


def refused_by(report: Report, check: str) -> None:
    assert check in failed_names(report), f"{check} did not fail:\n{describe(report)}"
    assert not report.eligible and report.exit_code() == 1


@dataclass(frozen=True)
class Forgery:
    id: str
    mode: str
    split: str
    check: str
    every_row: bool


FORGERIES = [
    Forgery(f"{mode}-{split}-{'every-row' if every else 'one-row'}", mode, split, check, every)
    for mode, check in (("fts_only", "replay.lexical"), ("vector_only", "replay.dense"),
                        ("hybrid", "replay.lexical"))
    for split in ("calibration", "heldout") for every in (False, True)
]


@pytest.mark.parametrize("forgery", FORGERIES, ids=[f.id for f in FORGERIES])
def test_a_reordered_ranking_with_every_digest_re_derived_is_refused(forgery: Forgery, run_copy: RunCopy) -> None:
    if forgery.mode == "hybrid":
        forged = forger.forge_hybrid_lexical_lane(run_copy, forgery.split, every_row=forgery.every_row)
    else:
        forged = forger.forge_single_lane(run_copy, forgery.mode, forgery.split, every_row=forgery.every_row)
    report = validate(run_copy.aggregate_path(forgery.mode, forgery.split), embeddings=False)
    refused_by(report, forgery.check)
    derived = {"rows.sha256", "rows.count", "rows.metrics", "rows.search_receipts", "aggregate.metrics",
               "rows.order", "rows.fusion", "rows.results"}
    assert not derived & failed_names(report), f"the forger re-derived these:\n{describe(report)}"
    detail = next(c for c in report.failed if c.name == forgery.check)
    assert any(f"query {qid}" in detail.detail for qid in forged), detail


def test_hybrid_rows_relabelled_as_fts_only_are_refused(run_copy: RunCopy) -> None:
    forger.relabel_hybrid_as_fts_only(run_copy, "calibration")
    refused_by(validate(run_copy.aggregate_path("fts_only", "calibration"), embeddings=False), "replay.lexical")


def test_re_rolling_unsampled_values_cannot_dodge_the_replay(run_copy: RunCopy) -> None:
    """A sample seeded from a digest could be dodged by nudging a latency until it missed the forged row.
    Every row is replayed, so every re-roll is refused."""
    forger.forge_single_lane(run_copy, "vector_only", "calibration", every_row=False)
    for attempt in range(5):
        rows = run_copy.rows("vector_only", "calibration")
        rows[-1]["latency_ms"] += 0.001 * (attempt + 1)
        forger.write_forged(run_copy, "vector_only", "calibration", rows)
        refused_by(validate(run_copy.aggregate_path("vector_only", "calibration"), embeddings=False),
                   "replay.dense")


@pytest.mark.real_model
def test_the_bundle_refuses_a_forged_run(run_copy: RunCopy, tmp_path: Path) -> None:
    as_clean_checkout(run_copy)
    forger.forge_single_lane(run_copy, "fts_only", "heldout", every_row=True)
    refusal = r"tiny-test-fts_only-heldout.aggregate.json: NOT ELIGIBLE[\s\S]*replay.lexical"
    with pytest.raises(BundleError, match=refusal):
        make_bundle(run_copy.out, tmp_path / "bundle")
    assert not (tmp_path / "bundle").exists()


def _poison_text(database: Path, fixture_path: Path) -> int:
    """Append each calibration query's text to its relevant documents' text in facts.sqlite3."""
    fixture = json.loads(fixture_path.read_text(encoding="utf-8"))
    ordinal = {d["doc_id"]: i for i, d in enumerate(fixture["documents"])}
    connection = sqlite3.connect(database)
    with connection:
        for query in fixture["queries"]:
            for doc in query["qrels"]:
                connection.execute("UPDATE facts SET body = body || ' ' || ? WHERE ordinal = ?",
                                   (query["text"], ordinal[doc]))
    connection.close()
    return len(fixture["queries"])


def test_a_store_whose_text_was_edited_is_refused_on_resume_and_by_the_validator(
        run_copy: RunCopy, monkeypatch: pytest.MonkeyPatch) -> None:
    store = run_copy.copy_store()
    _poison_text(store / "facts.sqlite3", run_copy.clean.fixture_path)
    (store / "store.json").unlink()
    fixture = load_fixture(run_copy.clean.fixture_path)
    contract, config = tiny_contract(), SearchConfig()
    with pytest.raises(StoreIntegrityError, match="another text"):
        build_store(store, fixture, contract.namespace, config.lexical)
    # The forger skips the harness's comparison, rebuilds the derived parts from the edited text and runs.
    monkeypatch.setattr(store_module, "_check_facts", lambda *args: None)
    build_store(store, fixture, contract.namespace, config.lexical)
    out = run_copy.scratch / "poisoned-out"
    run_split(Evaluation(corpus=fixture.path, store_dir=store, output_dir=out, split="calibration",
                        modes=("fts_only",), config=config), contract)
    report = validate(out / "tiny-test-fts_only-calibration.aggregate.json", embeddings=False)
    refused_by(report, "store.facts")
    refused_by(report, "replay.lexical")


def _poisoned_cache(work_dir: Path, genuine: CleanRun, embedder: LocalEmbedder) -> int:
    """Give each relevant document its query's vector, in cache records with valid checksums."""
    fixture = load_fixture(genuine.fixture_path)
    profile = fixture.data["profile"]
    documents = {d["doc_id"]: d for d in fixture.data["documents"]}
    poisoned = 0
    with EmbeddingCache(work_dir / "embedding-cache", embedder.identity()) as cache:
        for query, vector in zip(fixture.data["queries"], fixture.query_vectors, strict=True):
            for doc in query["qrels"]:
                cache.put(profile["document_prefix"] + documents[doc]["semantic_text"],
                          CachedVector(np.asarray(vector, dtype="<f4"), None, False))
                poisoned += 1
    return poisoned


def _build_and_run_vector_only(root: Path, embedder: LocalEmbedder) -> Path:
    """The genuine pipeline on whatever the embedding cache under `root/work` holds: fixture, store, a run."""
    contract, config = tiny_contract(), SearchConfig()
    report = build_fixture(contract, out=root / "fixture" / "tiny.json", work_dir=root / "work", embedder=embedder,
                           archive=tiny_archive(root / "tiny.zip"), progress=False)
    fixture = load_fixture(report.fixture)
    build_store(root / "store", fixture, contract.namespace, config.lexical)
    run_split(Evaluation(corpus=fixture.path, store_dir=root / "store", output_dir=root / "out",
                        split="calibration", modes=("vector_only",), config=config), contract)
    return root / "out" / "tiny-test-vector_only-calibration.aggregate.json"


@pytest.mark.real_model
def test_a_poisoned_embedding_cache_built_into_fixture_and_store_is_refused(
        clean_run: CleanRun, local_embedder: LocalEmbedder, tmp_path: Path) -> None:
    assert _poisoned_cache(tmp_path / "work", clean_run, local_embedder) > 0
    aggregate = _build_and_run_vector_only(tmp_path, local_embedder)
    assert json.loads(aggregate.read_text(encoding="utf-8"))["metrics"]["ndcg_at_10"] == 1.0
    consistent = validate(aggregate, embeddings=False)
    assert failed_names(consistent) <= {"source.clean", "source.git"}, describe(consistent)
    refused_by(validate(aggregate, full_embedding=True), "embeddings.model")


@pytest.mark.real_model
def test_a_fixture_with_one_nudged_vector_run_end_to_end_is_refused(
        clean_run: CleanRun, local_embedder: LocalEmbedder, tmp_path: Path) -> None:
    """One document's vector moved 1% toward a query it is relevant to, in the cache; every digest genuine."""
    fixture = load_fixture(clean_run.fixture_path)
    query, vector = fixture.data["queries"][0], fixture.query_vectors[0]
    doc = next(iter(query["qrels"]))
    index = next(i for i, d in enumerate(fixture.data["documents"]) if d["doc_id"] == doc)
    moved = fixture.document_vectors[index].astype(np.float64) + 0.01 * vector
    with EmbeddingCache(tmp_path / "work" / "embedding-cache", local_embedder.identity()) as cache:
        cache.put(fixture.data["profile"]["document_prefix"] + fixture.data["documents"][index]["semantic_text"],
                  CachedVector((moved / np.linalg.norm(moved)).astype("<f4"), None, False))
    refused_by(validate(_build_and_run_vector_only(tmp_path, local_embedder), full_embedding=True),
               "embeddings.model")
