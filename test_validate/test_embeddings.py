"""The embedding check: it re-embeds the fixture's texts with the packaged model and compares every vector."""

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from harness.validator.core.report import NOT_VERIFIED
from harness.validator.pipeline import validate
from harness.validator.verdicts.key import KEY_VARIABLE

from .support import (
    GIT_CHECKS,
    CleanRun,
    RunCopy,
    assert_fails,
    check_named,
    describe,
    failed_names,
    sha256_bytes,
    sha256_file,
)

ROOT = Path(__file__).resolve().parent.parent


def rewrite_vector(copy: RunCopy, target: int, change: Callable[[NDArray[np.float32]], NDArray[np.floating]]) -> Path:
    """Replace the vector at sidecar row `target` (documents first, then queries) in a private copy of the fixture,
    resealing the sidecar and fixture digests.

    For a document, the store, built from the original fixture, still holds the true vector, so store.vectors,
    store.facts and the dense replay notice the disagreement; only re-embedding ties the fixture itself to the
    model."""
    fixture_path, sidecar = copy.copy_fixture()
    fixture = json.loads(fixture_path.read_text(encoding="utf-8"))
    dims = fixture["vectors"]["dimensions"]
    vectors = np.frombuffer(sidecar.read_bytes(), dtype="<f4").reshape(-1, dims).copy()
    vectors[target] = change(vectors)
    data = vectors.astype("<f4").tobytes()
    sidecar.write_bytes(data)
    fixture["vectors"]["sha256"] = sha256_bytes(data)
    fixture_path.write_bytes(json.dumps(fixture, ensure_ascii=False, indent=1).encode("utf-8") + b"\n")
    return copy.edit_receipt("vector_only", "calibration", lambda r: r["corpus"].update(
        fixture_sha256=sha256_file(fixture_path), vectors_sha256=fixture["vectors"]["sha256"]))


STORE_SIDE = frozenset({"store.vectors", "store.facts", "replay.dense"})


@pytest.mark.real_model
def test_a_replaced_vector_fails_the_full_embedding_check(run_copy: RunCopy) -> None:
    aggregate = rewrite_vector(run_copy, 3, lambda vectors: vectors[4])
    without = validate(aggregate, embeddings=False)
    assert not (set(c.name for c in without.failed) - GIT_CHECKS - STORE_SIDE), describe(without)
    report = validate(aggregate, full_embedding=True)
    assert_fails(report, ("embeddings.model",), allowed=STORE_SIDE)
    check = check_named(report, "embeddings.model")
    assert "all " in check.detail and "document d" in str(check.found), check


@pytest.mark.real_model
def test_a_vector_nudged_toward_a_query_fails_the_full_embedding_check(run_copy: RunCopy) -> None:
    """A nudge too small for a cosine bound of 0.9999 to see, but larger than rounding ever moves a component."""
    def nudge(vectors: NDArray[np.float32]) -> NDArray[np.floating]:
        query = vectors[-1].astype(np.float64)
        moved: NDArray[np.float64] = vectors[2].astype(np.float64) + 0.01 * query
        return moved / float(np.linalg.norm(moved))
    aggregate = rewrite_vector(run_copy, 2, nudge)
    report = validate(aggregate, full_embedding=True)
    assert_fails(report, ("embeddings.model",), allowed=STORE_SIDE)


@pytest.mark.real_model
def test_a_quick_validation_samples_with_fresh_randomness_and_says_so(clean_run: CleanRun, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Each key's first sample of these bytes is drawn from the operating system's randomness; the same validator
    reuses its kept sample for the same bytes, without the model."""
    aggregate = clean_run.aggregate_path("fts_only", "calibration")
    seeds = []
    for user in ("one", "another"):
        monkeypatch.setenv(KEY_VARIABLE, str(tmp_path / user / "validator-key"))  # nothing kept yet for this user
        report = validate(aggregate)
        assert report.notes["embedding_check"]["scope"] == "sample" and report.notes["re_embedding"]["reused"] is False
        assert "fresh seed" in check_named(report, "embeddings.model").detail
        seeds.append(report.notes["embedding_check"]["seed"])
    assert len(set(seeds)) == 2 and None not in seeds, seeds
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # the kept sample needs no model
    again = validate(aggregate)
    assert again.notes["embedding_check"]["seed"] == seeds[1] and again.notes["re_embedding"]["reused"] is True
    check = check_named(again, "embeddings.model")
    assert check.status == "pass" and "; reused" in check.detail, describe(again)
    monkeypatch.delitem(sys.modules, "sentence_transformers")
    fixture = json.loads(clean_run.fixture_path.read_text(encoding="utf-8"))
    texts = len(fixture["documents"]) + len(fixture["queries"])
    full = validate(aggregate, full_embedding=True)
    assert full.notes["embedding_check"] == {"scope": "full", "texts": texts, "seed": None}, full.notes
    assert check_named(full, "embeddings.model").status == "pass", describe(full)


@pytest.mark.real_model
def test_a_kept_sample_is_not_reused_for_other_vectors(run_copy: RunCopy, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Changed vector bytes are sampled afresh: a kept sample covers exactly the bytes it was drawn for."""
    monkeypatch.setenv(KEY_VARIABLE, str(tmp_path / "state" / "validator-key"))
    clean = run_copy.clean.aggregate_path("vector_only", "calibration")
    assert validate(clean).notes["re_embedding"]["reused"] is False
    assert validate(clean).notes["re_embedding"]["reused"] is True
    changed = validate(rewrite_vector(run_copy, 3, lambda vectors: vectors[4]))
    assert changed.notes["re_embedding"]["reused"] is False, changed.notes


def mark_clean_checkout(copy: RunCopy) -> Path:
    """The copy's receipt says the run started from a clean checkout of HEAD (the real tree may be dirty)."""
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    empty = sha256_bytes(b"")
    return copy.edit_receipt("vector_only", "calibration", lambda r: r["source"]["git"].update(
        available=True, commit=head, dirty=False, changed_paths=[], status_sha256=empty, diff_sha256=empty))


def test_an_unavailable_model_is_not_verified_and_not_eligible(run_copy: RunCopy, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # `from sentence_transformers import` fails
    monkeypatch.setenv(KEY_VARIABLE, str(tmp_path / "validator-key"))  # no kept full re-embedding answers instead
    aggregate = mark_clean_checkout(run_copy)
    report = validate(aggregate)
    check = check_named(report, "embeddings.model")
    assert check.status == NOT_VERIFIED, describe(report)
    assert "unavailable here" in check.detail and "sentence-transformers" in check.detail
    assert not report.failed, describe(report)
    assert [c.name for c in report.not_verified] == ["embeddings.model"]
    assert not report.eligible
    assert report.exit_code() == 7
    assert report.verdict().startswith("NOT ELIGIBLE for a claim: 0 failed, 1 not verified")


@pytest.mark.real_model
def test_a_semantic_text_that_is_not_its_documents_fails_the_full_embedding_check(run_copy: RunCopy) -> None:
    """A document's semantic text and vector both replaced by another document's (a consistent pair, digests
    resealed): re-embedding the fixture's own semantic_text would agree; the text derived from the document's title
    and text does not, and neither does the semantic text the fixture states."""
    rewrite_vector(run_copy, 2, lambda vectors: vectors[3])
    fixture_path = run_copy.scratch / "fixture" / run_copy.clean.fixture_path.name
    fixture = json.loads(fixture_path.read_text(encoding="utf-8"))
    documents = fixture["documents"]
    documents[2]["semantic_text"] = documents[3]["semantic_text"]
    fixture_path.write_bytes(json.dumps(fixture, ensure_ascii=False, indent=1).encode("utf-8") + b"\n")
    aggregate = run_copy.edit_receipt("vector_only", "calibration", lambda r: r["corpus"].update(
        fixture_sha256=sha256_file(fixture_path)))
    report = validate(aggregate, full_embedding=True)
    assert "embeddings.model" in failed_names(report), describe(report)
    assert documents[2]["doc_id"] in str(check_named(report, "embeddings.model").found), describe(report)
