"""Re-embed the fixture's texts with the declared model and compare every vector with the fixture's.

Each text is derived here from the document's title and text (the query's text) by the stated rule and the
profile's code-point ceiling, never read from the fixture's own semantic_text, so the vectors are tied to the texts
the run searched. Full (`--full-embedding`, and always before a bundle is published): every document and query text.
Quick: a sample drawn with fresh randomness (the seed comes from the operating system, never from the
artifacts, and is printed in the report), so an artifact cannot steer which vectors are looked at. The outcome of
the first sample drawn for a fixture's bytes is kept (sealed with the user's key, `kept_run.keeping`), and a later quick
check of the same bytes by the same verifier and embedding code reuses it without loading the model: the same bytes get
the same verdict, and a sample only ever guards a diagnostic (a bundle re-embeds every text). When this validator
already keeps a full re-embedding of the same fixture and vectors, that covers any sample instead.
A fresh vector is L2-normalised in float64 and must lie within MAX_COMPONENT_DIFFERENCE of the stored
float32 vector in every component: about 4.6 times the largest difference other kernels (AVX2, generic,
oneDNN off, other thread counts) produced on all 5,483 SciFact prompts (docs/fixture.md, on what "the
same fixture" means).

The model is loaded through its own library (sentence-transformers for the packaged default, Ollama's
HTTP API for an Ollama model), never through the harness. The embedder is the verifier's: the local model
whose weights digest is the declared one, or the Ollama server the verifier names (`--ollama-url` or
$OLLAMA_HOST), never the endpoint written in the fixture, which whoever made the run chose. When the declared
model is not available here, the check says 'not verified' and the run is not eligible for a claim. The report
records how the vectors were verified (`notes.embedding_verification`).
"""

import json
import math
import random
import secrets
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.by_content import of_content
from ..core.context import Context
from ..core.digests import sha256_file
from ..core.locations import MODELS, read_places
from ..core.report import Report
from .embedders import Embed, NoVerifier, Unavailable, verifier
from .kept_run import keeping
from .model_at_hand import ModelDiffers

SAMPLE_DOCUMENTS, SAMPLE_QUERIES = 8, 4
MAX_COMPONENT_DIFFERENCE = 1e-6
_FULL_RUNS: dict[tuple[str, ...], list[list[float]]] = {}  # aggregates of one fixture re-embed once per embedder


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


def check_embeddings(ctx: Context, report: Report, embedder: Embed | None = None, *, full: bool = False,
                     seed: int | None = None, ollama_url: str | None = None) -> None:
    fixture = ctx.fixture
    if fixture is None or ctx.fixture_path is None:
        report.unverified("embeddings.model", "no corpus fixture to compare with")
        return
    embedding = fixture["embedding"]
    ceiling = fixture["profile"]["max_code_points"]
    misstated = of_content(ctx.fixture_sha256, "semantic texts misstated", lambda: [
        entry.get("doc_id", entry.get("query_id")) for kind, block in (("document", "documents"), ("query", "queries"))
        for entry in fixture[block] if entry["semantic_text"] != _semantic_text(kind, entry, ceiling)])
    if misstated:
        report.fail("embeddings.model", "the fixture's semantic_text of each text is the one its profile's rule "
                    "derives from the title and text", [], misstated[:5])
        return
    digest = embedding["identity"].get("model_files_sha256")
    hinted = tuple(place for place in (ctx.places.place(MODELS, digest),
                                       read_places(ctx.fixture_path.parent).place(MODELS, digest)) if place is not None)
    verification, make = verifier(embedding, ollama_url, hinted)
    report.notes["embedding_verification"] = verification
    sidecar = ctx.fixture_path.parent / fixture["vectors"]["file"]
    try:
        keeper = None if embedder is not None else keeping(
            ctx.fixture_sha256 or sha256_file(ctx.fixture_path), sidecar, verification)
        kept = None if keeper is None else keeper.kept("full")
        covered = not full and kept is not None and kept.outcome is not None  # a kept full run covers any sample
        whole = full or covered
        if not whole:  # the first sample this validator drew of these bytes, kept; an explicit seed asks for its own
            kept = None if keeper is None or seed is not None else keeper.kept("sample")
        recalled = kept.outcome if kept is not None else None
        if whole:
            seed = None
        elif recalled is not None:
            seed = recalled["seed"]
        elif seed is None:
            seed = secrets.randbits(64)
        picks = _picks(fixture, whole, seed or 0)
        scope = (f"a sample of {len(picks)} texts drawn with fresh seed {seed}, which proves nothing about the texts "
                 "it did not draw (run with --full-embedding, or --bundle, before publishing)" if not whole
                 else f"all {len(picks)} texts" + (
                     " (the full re-embedding this validator keeps for this fixture and verifier, which covers any "
                     "sample)" if covered else ""))
        report.notes["embedding_check"] = {"scope": "full" if whole else "sample", "texts": len(picks), "seed": seed,
                                           **({"covering": "sample"} if covered else {})}
        outcome = recalled if recalled is not None else {**_outcome(
            fixture, picks, _fresh(fixture, picks, sidecar, verification, make, embedder, full), sidecar),
            **({} if whole else {"seed": seed})}
    except NoVerifier as exc:
        report.unverified("embeddings.model", str(exc))
        return
    except ModelDiffers as exc:
        report.fail("embeddings.model", f"a model supplied to this verifier for the declared one is not it: {exc}")
        return
    except Unavailable as exc:
        report.unverified("embeddings.model", f"declared model {embedding['model']!r} unavailable here: {exc}")
        return
    if kept is not None:
        outcome = kept.keep(outcome)
        report.notes["re_embedding"] = outcome
    through = verification.get("server") or ("the packaged model" if "model_files_sha256" not in verification
                                               else "the model at hand, every file as declared")
    when = (f" on {outcome['re_embedded_at']} by validator {outcome['validator']}"
            f"{'; reused' if outcome.get('reused') else ''}" if "re_embedded_at" in outcome else "")
    within = outcome["largest"] is not None and outcome["largest"] <= MAX_COMPONENT_DIFFERENCE
    report.expect("embeddings.model", within,
                  f"{scope} re-embedded with {embedding['model']!r} through {through}{when}; every component "
                  f"within {MAX_COMPONENT_DIFFERENCE:g} of the fixture's (largest: {outcome['worst']})",
                  MAX_COMPONENT_DIFFERENCE, outcome["worst"])


def _fresh(fixture: dict[str, Any], picks: list[tuple[str, int]], sidecar: Path, verification: dict[str, Any],
           make: Callable[[], Embed], embedder: Embed | None, full: bool) -> list[list[float]]:
    """The picked texts embedded again (a full run once per process, fixture and embedder)."""
    prompts = _prompts(fixture, picks)
    if embedder is not None:
        return embedder(prompts)
    if not full:
        return make()(prompts)
    key = (sha256_file(sidecar), json.dumps(fixture["embedding"], sort_keys=True),
           json.dumps(verification, sort_keys=True), *prompts)
    if key not in _FULL_RUNS:
        _FULL_RUNS[key] = make()(prompts)
    return _FULL_RUNS[key]


def _outcome(fixture: dict[str, Any], picks: list[tuple[str, int]], fresh: list[list[float]],
             sidecar: Path) -> dict[str, Any]:
    """How far the fresh vectors lie from the stored ones: the largest component difference, and where."""
    documents = len(fixture["documents"])
    rows = [index if kind == "document" else documents + index for kind, index in picks]
    stored = _fixture_rows(sidecar, fixture["vectors"]["dimensions"], rows)
    differences = [_largest_difference(a, b) for a, b in zip(fresh, stored, strict=True)]
    worst = max(range(len(picks)), key=differences.__getitem__)
    kind, index = picks[worst]
    text_id = fixture["documents" if kind == "document" else "queries"][index][
        "doc_id" if kind == "document" else "query_id"]
    largest = differences[worst] if math.isfinite(differences[worst]) else None  # None: a vector of another shape
    return {"texts": len(picks), "largest": largest, "worst": f"{differences[worst]:.3g} ({kind} {text_id})"}
