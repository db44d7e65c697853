"""Tiny-corpus fixtures for the retrieval, store and runner tests (built once per worker)."""

from pathlib import Path

import pytest

from fixtures.archives import tiny_archive, tiny_contract
from harness.corpus.contract import Contract
from harness.embedding.embedders.local import LocalEmbedder
from harness.evaluation.history.heldout_record import RECORD_NAME, RECORD_VARIABLE
from harness.fixture.build import build_fixture
from harness.fixture.corpus_fixture import CorpusFixture, load_fixture


@pytest.fixture(scope="session")
def tiny_corpus(tmp_path_factory: pytest.TempPathFactory, local_embedder: LocalEmbedder) -> CorpusFixture:
    """The tiny corpus as a corpus fixture, embedded with the packaged model (contract profile)."""
    root = tmp_path_factory.mktemp("tiny-corpus")
    report = build_fixture(tiny_contract(), out=root / "tiny.json", work_dir=root / "work", embedder=local_embedder,
                           archive=tiny_archive(root / "tiny.zip"), progress=False)
    return load_fixture(report.fixture)


@pytest.fixture(scope="session")
def tiny() -> Contract:
    return tiny_contract()


@pytest.fixture
def store_dir(tmp_path: Path) -> Path:
    return tmp_path / "store"


@pytest.fixture
def own_heldout_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A held-out record of the test's own, so the looks it counts are its alone (the session's record is shared
    by every test and xdist worker)."""
    path = tmp_path / "looks" / RECORD_NAME
    monkeypatch.setenv(RECORD_VARIABLE, str(path))
    return path
