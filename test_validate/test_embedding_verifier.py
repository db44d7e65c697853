"""Vectors are verified by the verifier's embedder: the local model, or an Ollama server the verifier names,
never the endpoint written in the fixture (whoever made the run chose it)."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from fixtures.archives import tiny_archive, tiny_contract
from fixtures.clean_checkout import mark_clean_checkout
from fixtures.ollama_server import FakeOllama, fake_vector
from harness.embedding.embedders.ollama import OllamaEmbedder
from harness.evaluation.gates.freeze import freeze_configuration
from harness.evaluation.run_split import Evaluation, run_split
from harness.fixture.build import build_fixture
from harness.fixture.corpus_fixture import load_fixture
from harness.modes import SEARCHED as MODES
from harness.publish.bundle import BundleError, make_bundle
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.store.store import build_store
from harness.systems.builtin.system import BuiltinSystem
from harness.validator.core.report import FAIL, NOT_VERIFIED, PASS
from harness.validator.embedding.embedders import ollama_server
from harness.validator.pipeline import validate

from .support import CleanRun, check_named, describe


class DoctoredOllama(FakeOllama):
    """Serves the same model name and digest as an honest server, but other vectors for documents."""

    def _vector(self, text: str) -> list[float]:
        return fake_vector(text + " (doctored)") if text.startswith("search_document: ") else super()._vector(text)


@pytest.fixture
def no_ollama_host(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    yield


def _ollama_run(tmp_path: Path, server: FakeOllama, *, through_heldout: bool = False) -> Path:
    """A tiny run on a fixture embedded through `server`: vector_only calibration, or every mode frozen and run on
    held-out."""
    contract, config = tiny_contract(), SearchConfig()
    built = build_fixture(contract, out=tmp_path / "fixture" / "tiny.json", work_dir=tmp_path / "work",
                          embedder=OllamaEmbedder(host=server.url), archive=tiny_archive(tmp_path / "tiny.zip"),
                          progress=False)
    fixture = load_fixture(built.fixture)
    store, _ = build_store(tmp_path / "store", fixture, contract.namespace, config.lexical)
    out = tmp_path / "out"

    def evaluate(split: str, modes: tuple[str, ...]) -> None:
        run_split(Evaluation(corpus=fixture.path, store_dir=store.directory, output_dir=out, split=split,
                             modes=modes, config=config), contract)
    evaluate("calibration", MODES if through_heldout else ("vector_only",))
    if through_heldout:
        freeze_configuration(fixture=fixture, system=BuiltinSystem(store, config), contract=contract, modes=MODES,
                             output_dir=out, argv=[], allow_dirty=True, replace=False)
        evaluate("heldout", MODES)
    mark_clean_checkout(out)
    return out / "tiny-test-vector_only-calibration.aggregate.json"


@pytest.mark.usefixtures("no_ollama_host")
def test_a_doctored_embedding_server_is_never_asked_and_never_vouches_for_itself(tmp_path: Path) -> None:
    with DoctoredOllama() as doctored, FakeOllama() as honest:
        aggregate = _ollama_run(tmp_path, doctored)
        asked_during_the_run = doctored.embeds_answered

        unnamed = validate(aggregate, full_embedding=True)
        check = check_named(unnamed, "embeddings.model")
        assert check.status == NOT_VERIFIED and not unnamed.eligible and unnamed.exit_code() == 7, describe(unnamed)
        assert "--ollama-url" in check.detail and doctored.url in check.detail
        assert doctored.embeds_answered == asked_during_the_run  # the fixture's endpoint was not asked
        assert unnamed.notes["embedding_verification"]["fixture_endpoint"] == doctored.url

        verified = validate(aggregate, full_embedding=True, ollama_url=honest.url)
        assert check_named(verified, "embeddings.model").status == FAIL, describe(verified)
        assert verified.notes["embedding_verification"]["server"] == honest.url
        assert doctored.embeds_answered == asked_during_the_run

        trusted = validate(aggregate, full_embedding=True, ollama_url=doctored.url)  # the verifier's own choice
        assert check_named(trusted, "embeddings.model").status == PASS, describe(trusted)
        assert trusted.notes["embedding_verification"]["server"] == doctored.url


@pytest.mark.usefixtures("no_ollama_host")
def test_a_bundle_of_a_doctored_server_s_vectors_is_refused(tmp_path: Path) -> None:
    with DoctoredOllama() as doctored:
        out = _ollama_run(tmp_path, doctored, through_heldout=True).parent
        with pytest.raises(BundleError, match=r"embeddings\.model"):
            make_bundle(out, tmp_path / "bundle")
    with FakeOllama() as honest, pytest.MonkeyPatch.context() as patch:
        patch.setenv("OLLAMA_HOST", honest.url)
        with pytest.raises(BundleError, match=r"embeddings\.model"):
            make_bundle(out, tmp_path / "bundle")
    assert not (tmp_path / "bundle").exists()


def test_ollama_host_takes_ollama_s_own_forms(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    assert ollama_server(None) is None
    assert ollama_server("http://10.0.0.5:8080/") == "http://10.0.0.5:8080"
    monkeypatch.setenv("OLLAMA_HOST", "gpu-box")
    assert ollama_server(None) == "http://gpu-box:11434"
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9999")
    assert ollama_server(None) == "http://127.0.0.1:9999"
    assert ollama_server("https://embed.example") == "https://embed.example:11434"


@pytest.mark.real_model
def test_the_local_model_s_verification_is_recorded(clean_run: CleanRun) -> None:
    report = validate(clean_run.aggregate_path("fts_only", "calibration"))
    verification = report.notes["embedding_verification"]
    assert verification["model"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert verification["weights_sha256"].startswith("sha256:") and verification["libraries"]["torch"]
    assert "the packaged model" in check_named(report, "embeddings.model").detail
