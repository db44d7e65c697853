"""The full re-embedding of a fixture is made once per fixture, verifier and validator, and said so; a record that
was edited is never believed, and a long prompt is cut at the model's limit without a warning that looks like an
error."""

import json
from pathlib import Path

import pytest

from harness.validator.embedding import check_embeddings, embedders
from harness.validator.embedding.embed_batches import embed_in_equal_length_batches
from harness.validator.pipeline import validate
from harness.validator.verdicts import identity
from harness.validator.verdicts.key import KEY_VARIABLE, RECORDS

from .support import CleanRun, check_named, describe

pytestmark = pytest.mark.real_model


@pytest.fixture
def own_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    key = tmp_path / "state" / "validator-key"
    monkeypatch.setenv(KEY_VARIABLE, str(key))
    monkeypatch.setattr(check_embeddings, "_FULL_RUNS", {})  # no re-embedding from an earlier test of this process
    return key


def _model_asked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the verifier's model being made ready to embed."""
    asked: list[int] = []
    real = embedders._local

    def counted(identity: dict[str, object], hinted: tuple[Path, ...] = ()) -> embedders.Embed:
        asked.append(1)
        return real(identity, hinted)
    monkeypatch.setattr(embedders, "_local", counted)
    return asked


def test_a_full_re_embedding_is_kept_and_reused(clean_run: CleanRun, own_key: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    aggregate = clean_run.aggregate_path("hybrid", "calibration")
    asked = _model_asked(monkeypatch)
    first = validate(aggregate, full_embedding=True)
    made = first.notes["re_embedding"]
    assert made["reused"] is False and "not_kept" not in made and asked == [1], made
    assert len(list((own_key.parent / RECORDS).glob("*.json"))) == 1
    monkeypatch.setattr(check_embeddings, "_FULL_RUNS", {})
    again = validate(clean_run.aggregate_path("fts_only", "heldout"), full_embedding=True)
    kept = again.notes["re_embedding"]
    assert kept["reused"] is True and asked == [1], kept  # the model was not asked again
    check = check_named(again, "embeddings.model")
    assert check.status == "pass", describe(again)
    assert f"on {made['re_embedded_at']} by validator {made['validator']}; reused" in check.detail, check.detail


def test_a_kept_full_re_embedding_covers_a_sample_without_the_model(clean_run: CleanRun, own_key: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    aggregate = clean_run.aggregate_path("vector_only", "heldout")
    asked = _model_asked(monkeypatch)
    sampled = validate(aggregate)  # nothing kept yet: a fresh sample, through the model
    assert sampled.notes["embedding_check"]["scope"] == "sample" and asked == [1], sampled.notes
    made = validate(aggregate, full_embedding=True).notes["re_embedding"]
    assert asked == [1, 1]
    covered = validate(aggregate)
    assert asked == [1, 1], "a sample covered by the kept full re-embedding loaded the model"
    texts = made["texts"]
    assert covered.notes["embedding_check"] == {"scope": "full", "texts": texts, "seed": None, "covering": "sample"}
    check = check_named(covered, "embeddings.model")
    assert check.status == "pass" and "which covers any sample" in check.detail, describe(covered)
    assert f"on {made['re_embedded_at']} by validator {made['validator']}; reused" in check.detail, check.detail


def test_an_edited_re_embedding_record_is_not_believed(clean_run: CleanRun, own_key: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    aggregate = clean_run.aggregate_path("vector_only", "calibration")
    validate(aggregate, full_embedding=True)
    [record] = (own_key.parent / RECORDS).glob("*.json")
    document = json.loads(record.read_text(encoding="utf-8"))
    document["outcome"]["largest"] = 0.0
    record.write_text(json.dumps(document), encoding="utf-8")
    monkeypatch.setattr(check_embeddings, "_FULL_RUNS", {})
    asked = _model_asked(monkeypatch)
    again = validate(aggregate, full_embedding=True)
    assert asked == [1] and again.notes["re_embedding"]["reused"] is False, again.notes


def test_a_kept_re_embedding_serves_another_venv_but_not_other_embedding_code(
        clean_run: CleanRun, own_key: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another interpreter path and other unrelated distributions (the user's own venv) decide nothing about the
    vectors: the kept record is reused; other embedding code of the validator does, and it is not."""
    aggregate = clean_run.aggregate_path("vector_only", "calibration")
    assert validate(aggregate, full_embedding=True).notes["re_embedding"]["reused"] is False
    monkeypatch.setattr(check_embeddings, "_FULL_RUNS", {})
    monkeypatch.setattr(identity, "environment_digest", lambda: "sha256:" + "1" * 64)  # another venv
    asked = _model_asked(monkeypatch)
    assert validate(aggregate, full_embedding=True).notes["re_embedding"]["reused"] is True and asked == []
    monkeypatch.setattr(check_embeddings, "_FULL_RUNS", {})
    monkeypatch.setattr(identity, "embedding_code_digest", lambda: "sha256:" + "2" * 64)  # other embedding code
    again = validate(aggregate, full_embedding=True)
    assert again.notes["re_embedding"]["reused"] is False and asked == [1], again.notes


def test_a_long_prompt_is_cut_without_a_warning(capfd: pytest.CaptureFixture[str]) -> None:
    """A fresh model (its tokenizer warns once per instance): the tokenizer cuts at the model's limit itself."""
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(embedders.model_directory()), device="cpu", local_files_only=True)
    long_prompt = "passage: " + " ".join(["retrieval"] * 600)
    [vector] = embed_in_equal_length_batches(model, [long_prompt])
    captured = capfd.readouterr()
    assert "Token indices sequence length" not in captured.err + captured.out
    assert len(vector) == 384
    full = model.encode([long_prompt], show_progress_bar=False)[0]
    assert [float(x) for x in full] == vector  # the model cut the same tokens
