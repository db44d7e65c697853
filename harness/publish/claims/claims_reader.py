"""CLAIMS.md's "Check it yourself": the reader's commands from a bare machine (Python and a package index) to the
verdict, typed in the bundle's own directory; and its one command, for the lines that name it."""

from typing import Any

from harness.publish.environment.carried_model import CarriedModel
from harness.publish.environment.environment_lock import LOCK_NAME
from harness.publish.environment.stage import StagedEnvironment
from harness.publish.text.markdown_text import code, inert
from harness.validator.dataset.pins import pins_for

READER_VENV = "../scifact-reader"


def _public_archive(dataset: dict[str, Any], contract_name: str) -> tuple[str, str | None]:
    """The archive's file name the reader names, and where it is published (None: unknown), as the validator's own
    pins of the dataset say."""
    pins = pins_for(contract_name)
    url = str(((pins.original_container if pins is not None else None) or {}).get("url") or "") or None
    return (url or "").rsplit("/", 1)[-1] or dataset.get("archive") or "scifact.zip", url


def reader_command(archive: str | None) -> str:
    """The reader's one command, from the bundle's directory: a collection of the publisher's own is carried (None),
    a public dataset's archive the reader fetches beside the bundle and names."""
    return "scifact-validate --bundle ." + (f" --archive ../{archive}" if archive else "")


def reader_archive(receipt: dict[str, Any], dataset: dict[str, Any], carried: str | None) -> str | None:
    return None if carried else _public_archive(dataset, receipt["corpus"]["contract"]["name"])[0]


def model_steps(embedding: dict[str, Any], model: CarriedModel | None, venv: str) -> tuple[list[str], str, str]:
    """For a model of the publisher's own: the reader's commands that get it, the option that names it to the
    validator, and what the validator holds it to; nothing for the packaged model (installed with the harness)."""
    identity = embedding["identity"]
    if "files" not in identity:
        return [], "", ""
    name, digest, revision = identity["model"], identity["model_files_sha256"], identity.get("revision")
    held = f"held to every file its fixture declares (files sha256 `{digest}`)"
    if model is not None:
        return [], "", (f"; the embedding model `{inert(name)}` is carried, `{model.directory}/` ({model.files} "
                        f"files, {model.bytes / 1e6:.1f} MB), {held}")
    if revision is not None:
        return ([f"{venv}/bin/huggingface-cli download {name} --revision {revision}"], "",
                f"; the embedding model `{inert(name)}` at revision `{revision}` is fetched into the Hugging Face "
                f"cache, where the validator finds it, {held}")
    folder = name.replace("/", "--")
    return ([f"# put the model {name!r} (files sha256 {digest}) at ../{folder}: ask the publisher for it"],
            f" --model ../{folder}", f"; the embedding model `{inert(name)}` is the publisher's own and not "
            f"carried (a bundle made with --carry-model carries it), {held}")


def reader_section(receipt: dict[str, Any], dataset: dict[str, Any], environment: StagedEnvironment | None,
                   carried: str | None, model: CarriedModel | None = None) -> list[str]:
    """`carried`: the collection's archive's path in the bundle, for a collection of the publisher's own; `model`:
    the model of the publisher's own the bundle carries."""
    python = ".".join(str(receipt["executable"]["python_version"]).split(".")[:2])
    archive, url = _public_archive(dataset, receipt["corpus"]["contract"]["name"])
    if environment is not None and environment.wheel is not None:
        venv = READER_VENV
        torch = [environment.torch.format(pip=f"{venv}/bin/pip")] if environment.torch else []
        install = [f"python{python} -m venv {venv}", *torch,
                   f"{venv}/bin/pip install -r environment/{LOCK_NAME} environment/{environment.wheel}"]
        how = ("torch as the runs had it (its CPU build from PyTorch's CPU index, never a CUDA build of several GB), "
               f"then the harness wheel that made the runs (`environment/{environment.wheel}`) with the lock of the "
               f"environment they ran in (`environment/{LOCK_NAME}`: every distribution at its version)")
    else:
        commit = environment.commit if environment is not None else receipt["source"]["git"].get("commit")
        venv = "../scifact-harness/.venv"
        install = ["git clone <the harness's repository> ../scifact-harness",
                   f"git -C ../scifact-harness checkout {commit}", "make -C ../scifact-harness setup"]
        how = (f"a clone of the harness at the commit that made the runs ({code(commit)}; no wheel made them), set "
               f"up as its README says (`environment/{LOCK_NAME}` locks the environment they ran in)")
    fetch = [] if carried else [f"curl -L -o ../{archive} {url}" if url else f"# put the dataset's archive at "
                                f"../{archive}"]
    what = (f"the collection's archive is carried, `{carried}`: the collection is the publisher's own, identified by "
            "the digest its fixture declares" if carried else
            f"`{archive}`: {inert(dataset.get('archive_is') or 'the public archive')}; any copy with the pinned "
            "content will do")
    get_model, named, held = model_steps(receipt["embedding"], model, venv)
    return ["## Check it yourself", "",
            f"From a bare machine with Python {inert(python)} and a package index, in this bundle's directory, the "
            f"reader installs {how}, then validates everything ({what}{held}), with these commands.", "", "```bash",
            *install, *fetch, *get_model, f"{venv}/bin/{reader_command(None if carried else archive)}{named}", "```",
            "",
            "It exits 0 when every artifact is eligible, 1 when a check failed, 7 when something could not be "
            "verified (nothing failed), and prints one verdict per artifact and one for the bundle.", ""]
