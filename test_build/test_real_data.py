"""The real BEIR SciFact archive (../shared/data/scifact.zip via --scifact-archive or SCIFACT_ARCHIVE)."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from harness.corpus.contract import scifact_contract
from harness.corpus.dataset import load_dataset
from harness.fixture.build import BuildReport
from harness.fixture.corpus_fixture import load_fixture

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.real_data
def test_real_archive_passes_pins_and_shape(scifact_archive: Path) -> None:
    dataset = load_dataset(scifact_archive, scifact_contract())
    assert dataset.pinned and dataset.unused_members == []
    assert (len(dataset.documents), len(dataset.queries), dataset.qrel_pairs) == (5183, 300, 339)
    grades = [grade for judged in dataset.qrels.values() for grade in judged.values()]
    assert set(grades) == {1}
    assert max(len(judged) for judged in dataset.qrels.values()) == 5
    assert sum(len(judged) == 1 for judged in dataset.qrels.values()) == 277


@pytest.mark.full_build
def test_full_fixture(scifact_build: BuildReport) -> None:
    assert (scifact_build.documents, scifact_build.queries, scifact_build.qrel_pairs) == (5183, 300, 339)
    fixture = load_fixture(scifact_build.fixture)
    vectors = np.vstack([fixture.document_vectors, fixture.query_vectors]).astype(np.float64)
    assert vectors.shape == (5483, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    assert fixture.data["embedding"]["model"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert fixture.data["source"]["payload_pinned"] is True


@pytest.mark.full_build
def test_full_rebuild_from_the_cli_is_a_cache_hit(scifact_build: BuildReport, scifact_archive: Path,
                                                  work_dir: Path) -> None:
    before = scifact_build.fixture.read_bytes()
    result = subprocess.run(
        [sys.executable, "-m", "harness", "build", "--archive", str(scifact_archive), "--out",
         str(scifact_build.fixture), "--work-dir", str(work_dir), "--no-progress"],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "0 embedded" in result.stdout and "5483 from cache" in result.stdout and "unchanged" in result.stdout
    assert scifact_build.fixture.read_bytes() == before
