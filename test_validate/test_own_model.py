"""A model of one's own (the packaged model cut to 3 layers, saved as a sentence-transformers directory): named, not
placed, in every receipt; found by the validator where the build placed it; held to every file it declares."""

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from fixtures.archives import tiny_archive
from fixtures.cli import Uncaptured, run_tiny_cli
from fixtures.cut_model import cut_model
from harness.validator.core.report import FAIL, NOT_VERIFIED, PASS
from harness.validator.embedding import check_embeddings, model_at_hand
from harness.validator.embedding.kept_run import fresh_only
from harness.validator.pipeline import validate

pytestmark = pytest.mark.real_model


@pytest.fixture(scope="module")
def own_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return cut_model(tmp_path_factory.mktemp("models") / "minilm-3")


@pytest.fixture(scope="module")
def own_run(own_model: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("own-model-run")
    archive = tiny_archive(base / "tiny.zip")
    capsys = Uncaptured()
    fixture = base / "work" / "tiny-corpus.json"
    built = run_tiny_cli(["build", "--archive", str(archive), "--work-dir", str(base / "work"), "--out", str(fixture),
                          "--model", str(own_model), "--no-progress"], capsys)
    assert built.code == 0, built.err
    ran = run_tiny_cli(["run", "--corpus", str(fixture), "--store-dir", str(base / "store"), "--output-dir",
                        str(base / "out"), "--split", "calibration", "--mode", "vector_only", "--no-validate"],
                       capsys)
    assert ran.code == 0, ran.err
    [aggregate] = (base / "out").glob("*vector_only-calibration.aggregate.json")
    return {"fixture": fixture, "aggregate": aggregate, "base": base, "archive": archive}


def _check(report: Any, name: str) -> Any:
    [check] = [check for check in report.checks if check.name == name]
    return check


def test_the_fixture_names_the_model_and_lists_its_files_never_its_place(own_run: dict[str, Path],
                                                                          own_model: Path) -> None:
    fixture = json.loads(own_run["fixture"].read_text(encoding="utf-8"))
    identity = fixture["embedding"]["identity"]
    assert fixture["embedding"]["model"] == identity["model"] == "minilm-3"
    assert set(identity["files"]) >= {"model.safetensors", "modules.json", "tokenizer.json", "1_Pooling/config.json"}
    assert "README.md" not in identity["files"] and identity["revision"] is None
    assert [module["type"].rsplit(".", 1)[-1] for module in identity["vector_shape"]["modules"]] == [
        "Transformer", "Pooling", "Normalize"]
    assert str(own_model) not in own_run["fixture"].read_text(encoding="utf-8")
    assert str(own_model) not in own_run["aggregate"].read_text(encoding="utf-8")
    placed = json.loads((own_run["fixture"].parent / "locations.json").read_text(encoding="utf-8"))
    assert placed["models"] == {identity["model_files_sha256"]: str(own_model)}


def test_the_validator_finds_the_model_where_the_build_placed_it_and_verifies_every_vector(
        own_run: dict[str, Path]) -> None:
    report = validate(own_run["aggregate"], full_embedding=True, archive=own_run["archive"])
    check = _check(report, "embeddings.model")
    assert check.status == PASS, check.detail
    assert "minilm-3" in check.detail and "every file as declared" in check.detail


@pytest.fixture
def another_host(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Nothing this process re-embedded or kept before, and no model offered: as a reader's machine."""
    monkeypatch.setattr(check_embeddings, "_FULL_RUNS", {})
    monkeypatch.setattr(model_at_hand, "_OFFERED", [])
    with fresh_only():
        yield


def test_without_the_model_at_hand_it_is_not_verified_and_says_what_to_fetch(own_run: dict[str, Path],
                                                                             tmp_path: Path, another_host: Any) -> None:
    moved = tmp_path / "elsewhere"
    shutil.copytree(own_run["base"], moved)
    for hint in moved.rglob("locations.json"):
        hint.unlink()
    [aggregate] = (moved / "out").glob("*vector_only-calibration.aggregate.json")
    report = validate(aggregate, full_embedding=True, archive=own_run["archive"],
                      fixture=moved / "work" / "tiny-corpus.json", store_dir=moved / "store")
    check = _check(report, "embeddings.model")
    assert check.status == NOT_VERIFIED
    identity = json.loads((moved / "work" / "tiny-corpus.json").read_text(encoding="utf-8"))["embedding"]["identity"]
    assert f"whose files hash to {identity['model_files_sha256']} with --model DIR" in check.detail


def test_a_copy_with_one_weight_changed_fails_naming_the_file(own_run: dict[str, Path], own_model: Path,
                                                             tmp_path: Path, another_host: Any) -> None:
    copy = shutil.copytree(own_model, tmp_path / "minilm-3")
    weights = bytearray((copy / "model.safetensors").read_bytes())
    weights[-7] ^= 0x01
    (copy / "model.safetensors").write_bytes(bytes(weights))
    model_at_hand.offer_models([copy])
    moved = tmp_path / "elsewhere"
    shutil.copytree(own_run["base"], moved)
    for hint in moved.rglob("locations.json"):
        hint.unlink()
    [aggregate] = (moved / "out").glob("*vector_only-calibration.aggregate.json")
    report = validate(aggregate, full_embedding=True, archive=own_run["archive"],
                      fixture=moved / "work" / "tiny-corpus.json", store_dir=moved / "store")
    check = _check(report, "embeddings.model")
    assert check.status == FAIL
    assert "its file 'model.safetensors' differs" in check.detail


def _hub_snapshot(cache: Path, model: Path, name: str, revision: str) -> Path:
    """The model laid out as the Hugging Face cache keeps a snapshot: each file a link to its blob."""
    org, short = name.split("/")
    snapshot = cache / f"models--{org}--{short}" / "snapshots" / revision
    blobs = cache / f"models--{org}--{short}" / "blobs"
    blobs.mkdir(parents=True)
    for path in sorted(p for p in model.rglob("*") if p.is_file()):
        blob = blobs / f"{len(list(blobs.iterdir()))}"
        shutil.copy(path, blob)
        link = snapshot / path.relative_to(model)
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(os.path.relpath(blob, link.parent))
    return snapshot


def test_a_hub_model_at_a_commit_is_read_from_the_cache_and_found_there_by_the_validator(
        own_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        another_host: Any) -> None:
    revision = "0123456789abcdef0123456789abcdef01234567"
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    missing = run_tiny_cli(["build", "--archive", str(tiny_archive(tmp_path / "tiny.zip")), "--work-dir",
                            str(tmp_path / "work"), "--out", str(tmp_path / "work" / "f.json"), "--model",
                            f"example/minilm-3@{revision}"], capsys)
    assert missing.code == 2 and "is not in the Hugging Face cache" in missing.err
    assert f"huggingface-cli download example/minilm-3 --revision {revision}" in missing.err
    unpinned = run_tiny_cli(["build", "--archive", str(tmp_path / "tiny.zip"), "--work-dir", str(tmp_path / "work"),
                             "--out", str(tmp_path / "work" / "f.json"), "--model", "example/minilm-3"], capsys)
    assert unpinned.code == 2 and "example/minilm-3@<40-hex commit>" in unpinned.err
    _hub_snapshot(tmp_path / "hub", own_model, "example/minilm-3", revision)
    fixture = tmp_path / "work" / "tiny-corpus.json"
    built = run_tiny_cli(["build", "--archive", str(tmp_path / "tiny.zip"), "--work-dir", str(tmp_path / "work"),
                          "--out", str(fixture), "--model", f"example/minilm-3@{revision}", "--no-progress"], capsys)
    assert built.code == 0, built.err
    identity = json.loads(fixture.read_text(encoding="utf-8"))["embedding"]["identity"]
    assert (identity["model"], identity["revision"]) == ("example/minilm-3", revision)
    assert str(tmp_path) not in fixture.read_text(encoding="utf-8")
    ran = run_tiny_cli(["run", "--corpus", str(fixture), "--store-dir", str(tmp_path / "store"), "--output-dir",
                        str(tmp_path / "out"), "--split", "calibration", "--mode", "vector_only", "--no-validate"],
                       capsys)
    assert ran.code == 0, ran.err
    for hint in tmp_path.rglob("locations.json"):  # only the Hub cache can place it now
        data = json.loads(hint.read_text(encoding="utf-8"))
        data.pop("models", None)
        hint.write_text(json.dumps(data), encoding="utf-8")
    [aggregate] = (tmp_path / "out").glob("*vector_only-calibration.aggregate.json")
    report = validate(aggregate, full_embedding=True, archive=tmp_path / "tiny.zip")
    assert _check(report, "embeddings.model").status == PASS, _check(report, "embeddings.model").detail
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-hub"))
    monkeypatch.setattr(check_embeddings, "_FULL_RUNS", {})
    gone = _check(validate(aggregate, full_embedding=True, archive=tmp_path / "tiny.zip"), "embeddings.model")
    assert gone.status == NOT_VERIFIED
    assert f"`huggingface-cli download example/minilm-3 --revision {revision}`" in gone.detail
