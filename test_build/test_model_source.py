"""Which model a build embeds with: the forms --model takes and the refusal of each wrong one, the declared name, the
files a model loads (documentation and other runtimes' weights left out) and what shapes its vectors."""

import json
from pathlib import Path

import pytest

from harness.embedding.embedders.model_source import (
    DEFAULT_MODEL,
    UnknownModelError,
    model_files,
    resolve_model,
    vector_shape,
)
from harness.hashing import sha256_file

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _model(directory: Path) -> Path:
    (directory / "1_Pooling").mkdir(parents=True)
    (directory / "onnx").mkdir()
    (directory / "modules.json").write_text(json.dumps([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]),
        encoding="utf-8")
    (directory / "1_Pooling" / "config.json").write_text(json.dumps(
        {"word_embedding_dimension": 384, "pooling_mode_mean_tokens": True, "nested": {"b": 1, "a": [1, 2]}}),
        encoding="utf-8")
    (directory / "config_sentence_transformers.json").write_text(json.dumps(
        {"prompts": {"query": "query: "}, "default_prompt_name": None, "similarity_fn_name": "cosine"}),
        encoding="utf-8")
    (directory / "sentence_bert_config.json").write_text('{"max_seq_length": 128}', encoding="utf-8")
    for name in ("model.safetensors", "README.md", "onnx/model.onnx", "tf_model.h5"):
        (directory / name).write_bytes(name.encode())
    return directory


@pytest.mark.parametrize(("spec", "says"), [
    ("/no/such/model", "model directory /no/such/model does not exist"),
    ("./relative/model", "does not exist"),
    ("org/name", "pin a Hub model to a commit, as org/name@<40-hex commit>"),
    ("org/name@main", "'main' is not a commit; pin the Hub model to its full 40-hex commit"),
    (f"org/name@{COMMIT}", f"huggingface-cli download org/name --revision {COMMIT}"),
    ("plain-word", "is neither"),
])
def test_each_wrong_model_is_refused_naming_the_fix(spec: str, says: str, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UnknownModelError) as refused:
        resolve_model(spec)
    assert says in str(refused.value)


def test_a_directory_without_modules_json_is_no_model(tmp_path: Path) -> None:
    with pytest.raises(UnknownModelError, match=r"holds no modules\.json"):
        resolve_model(str(tmp_path))


def test_a_directory_is_named_by_its_own_name_or_the_declared_one_never_by_its_place(tmp_path: Path) -> None:
    model = _model(tmp_path / "my-model")
    assert resolve_model(str(model)).name == "my-model"
    assert resolve_model(str(model), "team/e5-tuned").name == "team/e5-tuned"
    for bad in ("../x", "/abs/x", "a/b/c", "", "~x"):
        with pytest.raises(UnknownModelError, match="is not a name"):
            resolve_model(str(model), bad)
    with pytest.raises(UnknownModelError, match="drop --model-name"):
        resolve_model("all-MiniLM-L6-v2", "mine")
    assert resolve_model("all-MiniLM-L6-v2").name == DEFAULT_MODEL


def test_the_files_a_model_loads_leave_out_documentation_and_other_runtimes(tmp_path: Path) -> None:
    model = _model(tmp_path / "m")
    files = model_files(model)
    assert sorted(files) == ["1_Pooling/config.json", "config_sentence_transformers.json", "model.safetensors",
                             "modules.json", "sentence_bert_config.json"]
    assert files["model.safetensors"] == sha256_file(model / "model.safetensors")


def test_what_shapes_the_vectors_is_read_from_the_models_own_files(tmp_path: Path) -> None:
    shape = vector_shape(_model(tmp_path / "m"))
    assert [module["path"] for module in shape["modules"]] == ["", "1_Pooling"]
    assert shape["modules"][1]["config"] == {"word_embedding_dimension": 384, "pooling_mode_mean_tokens": True,
                                             "nested": '{"a":[1,2],"b":1}'}
    assert (shape["max_seq_length"], shape["prompts"], shape["similarity_fn_name"]) == (128, {"query": "query: "},
                                                                                        "cosine")
