"""`bundle --carry-model`: a model of one's own travels with its bundle as `inputs/model/NAME/`, every file it loads
copied and held to the sha256 its fixture declares, so that its reader needs nothing else (a private or fine-tuned
model no one else could fetch). Without it, CLAIMS.md says what the reader fetches."""

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.atomic import write_file
from harness.evaluation.receipts.locations import LOCATIONS_NAME, MODELS, hinted
from harness.hashing import sha256_bytes
from harness.publish.environment.refused import EnvironmentRefused as Refused

MODEL_DIR = "inputs/model"


@dataclass(frozen=True)
class CarriedModel:
    directory: str  # relative to the bundle
    files: int
    bytes: int


def _folder_name(model: str) -> str:
    return re.sub(r"[^A-Za-z0-9._+-]", "--", model)


def stage_model(staging: Path, output_dir: Path, embedding: dict[str, Any]) -> CarriedModel:
    """Copy the receipts' model of one's own (where OUTPUT/locations.json places it) into the staging directory, each
    file checked against its declared sha256 as it is read."""
    identity = embedding["identity"]
    if "files" not in identity:
        raise Refused(f"--carry-model carries a model of your own; these runs used {embedding['model']!r}, which "
                          "every reader installs (or an Ollama model, which its server holds): drop --carry-model")
    source = hinted(output_dir, MODELS, identity["model_files_sha256"])
    if source is None or not source.is_dir():
        raise Refused(f"{output_dir / LOCATIONS_NAME} does not place model {identity['model']!r} (files sha256 "
                          f"{identity['model_files_sha256']}): run the split again from the fixture `build` wrote, "
                          "beside which the model's place is kept")
    target = staging / MODEL_DIR / _folder_name(identity["model"])
    total = 0
    for name, declared in sorted(identity["files"].items()):
        try:
            data = (source / name).read_bytes()
        except OSError as exc:
            raise Refused(f"model file {source / name} cannot be read ({exc.strerror or exc}); the model "
                              f"{identity['model']!r} at {source} is not whole") from exc
        if sha256_bytes(data) != declared:
            raise Refused(f"model file {source / name} is not the one the fixture declares ({declared}; this "
                              f"file is {sha256_bytes(data)}): the model at {source} changed after the build")
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        write_file(target / name, data)
        total += len(data)
    return CarriedModel(target.relative_to(staging).as_posix(), len(identity["files"]), total)
