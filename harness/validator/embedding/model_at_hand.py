"""A model other than the packaged one: found where the verifier has it, and held to the files the fixture declares.

The fixture's identity of a local model lists every file the model loads ({path: sha256}), its declared name (a name,
never a place) and, for a Hub model, the commit. The verifier supplies the model: a directory it names (--model,
several allowed), the copy a bundle carries (`inputs/model/`), a place the run's locations.json hints at, or the
Hugging Face cache's snapshot at the declared commit. Every candidate is held to the declared files with this
validator's own reading: the first whose files are all the declared ones is used. A candidate whose declared files
differ (a changed weight, a missing tokenizer) is a failure naming the file, since it claims to be the model and is
not; none at hand is 'not verified', with one sentence saying what to fetch.
"""

import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..core.digests import sha256_canonical
from ..core.reading import note_tree
from ..core.settled import settled_digest

# Files a sentence-transformers model in torch does not load (documentation, other runtimes' weights): a Hub snapshot
# often holds them beside its own; they are no part of the declared files.
_UNLOADED_FILES = {"README.md", ".gitattributes", "tf_model.h5", "flax_model.msgpack", "rust_model.ot"}
_UNLOADED_DIRECTORIES = {"onnx", "openvino", "coreml", "__pycache__", ".git"}
_HUB_NAME = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
_OFFERED: list[Path] = []


class ModelDiffers(Exception):
    """A model the verifier supplied is not the declared one: a failure, naming the file."""


def offer_models(directories: Iterable[Path]) -> None:
    """The models the verifier supplies for this process (--model, a bundle's carried copy), tried first."""
    _OFFERED.extend(Path(directory) for directory in directories if Path(directory) not in _OFFERED)


def _hub_snapshot(name: str, revision: str | None) -> Path | None:
    if revision is None or not _HUB_NAME.match(name):
        return None
    cache = os.environ.get("HF_HUB_CACHE") or os.path.join(
        os.environ.get("HF_HOME") or os.path.join(os.environ.get("XDG_CACHE_HOME") or "~/.cache", "huggingface"), "hub")
    org, _, short = name.partition("/")
    return Path(cache).expanduser() / f"models--{org}--{short}" / "snapshots" / revision


def files_of(directory: Path) -> dict[str, str]:
    """{relative path: sha256} of every file under `directory` that the model loads (links followed)."""
    note_tree(directory)  # the tokenizer and weights are read by native code, which no audit event reports
    found: dict[str, str] = {}
    for path in sorted(directory.rglob("*")):
        relative = path.relative_to(directory)
        if (path.is_file() and relative.name not in _UNLOADED_FILES
                and not _UNLOADED_DIRECTORIES.intersection(relative.parts[:-1])):
            found[relative.as_posix()] = settled_digest(path)
    return found


def _difference(declared: dict[str, str], found: dict[str, str]) -> str | None:
    for name in sorted(declared.keys() | found.keys()):
        if name not in found:
            return f"its file {name!r} is missing (declared sha256 {declared[name]})"
        if name not in declared:
            return f"it holds {name!r}, which the declared model does not (sha256 {found[name]})"
        if found[name] != declared[name]:
            return f"its file {name!r} differs (declared sha256 {declared[name]}, found {found[name]})"
    return None


def _prompts_problem(identity: dict[str, Any], directory: Path) -> str | None:
    """The prompts the identity declares are the ones the model's own settings hold (a profile's prefixes are held to
    the declared ones)."""
    try:
        settings = json.loads((directory / "config_sentence_transformers.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        settings = {}
    except (OSError, ValueError) as exc:
        return f"its config_sentence_transformers.json cannot be read ({exc})"
    own = (settings.get("prompts") if isinstance(settings, dict) else None) or {}
    declared = (identity.get("vector_shape") or {}).get("prompts") or {}
    if own != declared:
        return f"the prompts the fixture declares ({declared}) are not the model's own ({own})"
    return None


def what_to_fetch(identity: dict[str, Any]) -> str:
    """One sentence: what the reader needs, and how to get it."""
    name, revision = identity.get("model"), identity.get("revision")
    digest = identity.get("model_files_sha256")
    if revision is not None and isinstance(name, str) and _HUB_NAME.match(name):
        return (f"fetch {name} at revision {revision} (files sha256 {digest}) with `huggingface-cli download {name} "
                f"--revision {revision}` (it is then found in the Hugging Face cache), or pass its directory with "
                "--model DIR")
    return (f"pass the directory of model {name!r} whose files hash to {digest} with --model DIR (ask the publisher "
            "for it, or for a bundle made with --carry-model)")


def model_directory(identity: dict[str, Any], hinted: Iterable[Path]) -> Path:
    """The first directory at hand holding exactly the declared files: offered, hinted, then the Hub cache. Raises
    ModelDiffers for a candidate that differs, LookupError when none is at hand."""
    declared = identity.get("files")
    if not isinstance(declared, dict) or sha256_canonical(declared) != identity.get("model_files_sha256"):
        raise ModelDiffers("the fixture's declared model files do not hash to its model_files_sha256")
    snapshot = _hub_snapshot(str(identity.get("model")), identity.get("revision"))
    candidates = [*_OFFERED, *hinted, *([snapshot] if snapshot is not None else [])]
    differing: list[str] = []
    for candidate in candidates:
        if not (candidate / "modules.json").is_file():
            continue
        problem = _difference(declared, files_of(candidate)) or _prompts_problem(identity, candidate)
        if problem is None:
            return candidate
        differing.append(f"{problem}, in {candidate}")
    if differing:
        raise ModelDiffers(differing[0])
    raise LookupError(what_to_fetch(identity))
