"""The model-prompts profile: a model declaring prompts (e5's "query: " and "passage: ") asks each role with its own
prompt; the vectors are sentence-transformers' own for those prompts, the validator derives the same texts, and a
profile or a declaration that strays from the model's own prompts fails."""

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fixtures.archives import tiny_archive, tiny_contract
from fixtures.cli import Uncaptured, run_tiny_cli
from fixtures.cut_model import cut_model
from harness.embedding.profiles import text_profile
from harness.errors import HarnessError
from harness.hashing import sha256_canonical
from harness.validator.core.report import FAIL, PASS
from harness.validator.pipeline import validate

pytestmark = pytest.mark.real_model
PROMPTS = {"query": "query: ", "passage": "passage: "}


@pytest.fixture(scope="module")
def prompted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("model-prompts")
    model = cut_model(base / "e5-like", layers=2, prompts=PROMPTS)
    archive = tiny_archive(base / "tiny.zip")
    fixture = base / "work" / "tiny-corpus.json"
    built = run_tiny_cli(["build", "--archive", str(archive), "--work-dir", str(base / "work"), "--out", str(fixture),
                          "--model", str(model), "--profile", "model-prompts", "--no-progress"], Uncaptured())
    assert built.code == 0, built.err
    ran = run_tiny_cli(["run", "--corpus", str(fixture), "--store-dir", str(base / "store"), "--output-dir",
                        str(base / "out"), "--split", "calibration", "--mode", "vector_only", "--no-validate"],
                       Uncaptured())
    assert ran.code == 0, ran.err
    [aggregate] = (base / "out").glob("*vector_only-calibration.aggregate.json")
    return {"model": model, "fixture": fixture, "aggregate": aggregate, "archive": archive, "base": base}


def _status(report: Any, name: str) -> tuple[str, str]:
    [check] = [c for c in report.checks if c.name == name]
    return check.status, check.line()


def test_each_role_is_asked_with_the_models_own_prompt_as_sentence_transformers_asks_it(
        prompted: dict[str, Path]) -> None:
    import torch
    from sentence_transformers import SentenceTransformer

    fixture = json.loads(prompted["fixture"].read_text(encoding="utf-8"))
    profile = fixture["profile"]
    assert (profile["name"], profile["query_prefix"], profile["document_prefix"]) == ("model-prompts", "query: ",
                                                                                      "passage: ")
    assert profile["prompt_names"] == {"query": "query", "document": "passage"} and profile["max_code_points"] == 700
    model = SentenceTransformer(str(prompted["model"]), device="cpu", local_files_only=True)
    query, document = fixture["queries"][0], fixture["documents"][0]
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        expected = model.encode([query["semantic_text"], document["semantic_text"]], batch_size=1,
                                prompt_name=None, convert_to_numpy=True)
        asked = np.vstack([model.encode([query["semantic_text"]], prompt_name="query", batch_size=1),
                           model.encode([document["semantic_text"]], prompt_name="passage", batch_size=1)])
    finally:
        torch.set_num_threads(before)
    vectors = np.fromfile(prompted["fixture"].parent / fixture["vectors"]["file"], dtype="<f4").reshape(
        -1, fixture["vectors"]["dimensions"])
    stored = vectors[[len(fixture["documents"]), 0]]
    normalized = asked / np.linalg.norm(asked.astype(np.float64), axis=1, keepdims=True)
    assert np.abs(stored - normalized).max() <= 1e-7
    assert np.abs(stored - expected / np.linalg.norm(expected, axis=1, keepdims=True)).max() > 1e-3  # prompts matter


def test_the_validator_derives_the_same_texts_and_holds_the_profile_to_the_models_prompts(
        prompted: dict[str, Path]) -> None:
    report = validate(prompted["aggregate"], full_embedding=True, archive=prompted["archive"])
    assert _status(report, "embeddings.model")[0] == PASS, _status(report, "embeddings.model")
    status, line = _status(report, "profile.contract")
    assert status == PASS and "the embedding model's own prompts" in line


def _forged(prompted: dict[str, Path], tmp_path: Path, edit: Any) -> Path:
    """A copy of the run whose fixture (and the receipt's copy of its profile and embedding) is edited."""
    copied = Path(shutil.copytree(prompted["base"], tmp_path / "copy"))
    fixture_path = copied / "work" / "tiny-corpus.json"
    fixture = json.loads(fixture_path.read_text(encoding="utf-8"))
    edit(fixture)
    fixture["embedding"]["identity_sha256"] = sha256_canonical(fixture["embedding"]["identity"])
    fixture_path.write_text(json.dumps(fixture), encoding="utf-8")
    return fixture_path


def test_a_prefix_that_is_not_the_models_prompt_fails_the_profile(prompted: dict[str, Path], tmp_path: Path) -> None:
    def edit(fixture: dict[str, Any]) -> None:
        fixture["profile"]["query_prefix"] = "search_query: "

    fixture = _forged(prompted, tmp_path, edit)
    report = validate(prompted["aggregate"], fixture=fixture, embeddings=False, archive=prompted["archive"])
    status, line = _status(report, "profile.contract")
    assert status == FAIL and "is not the model's prompt 'query'" in line


def test_prompts_declared_otherwise_than_the_models_own_files_fail(prompted: dict[str, Path], tmp_path: Path) -> None:
    def edit(fixture: dict[str, Any]) -> None:
        shape = fixture["embedding"]["identity"]["vector_shape"]
        shape["prompts"] = {**shape["prompts"], "query": "search_query: "}
        fixture["profile"]["query_prefix"] = "search_query: "

    fixture = _forged(prompted, tmp_path, edit)
    report = validate(prompted["aggregate"], fixture=fixture, full_embedding=True, archive=prompted["archive"])
    status, line = _status(report, "embeddings.model")
    assert status == FAIL and "are not the model's own" in line


def test_a_model_without_a_query_prompt_is_refused_for_the_profile() -> None:
    with pytest.raises(HarnessError, match="declares no prompt named 'query'"):
        text_profile("model-prompts", tiny_contract(), {"passage": "passage: "})
    profile = text_profile("model-prompts", tiny_contract(), {"query": "Represent this question: "})
    assert (profile.query_prefix, profile.document_prefix) == ("Represent this question: ", "")
    assert profile.record()["prompt_names"] == {"query": "query", "document": None}
    assert "prompt_names" not in text_profile("scifact-contract", tiny_contract()).record()
    assert copy.deepcopy(profile) == profile
