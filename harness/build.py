"""Build the corpus fixture: archive -> verified dataset -> semantic text -> vectors -> fixture."""

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import BUILDER_VERSION
from .contract import Contract
from .dataset import Dataset, load_dataset
from .download import ArchiveFile, deadline_seconds, digest_file, fetch_or_reuse
from .embedders.base import Embedder, EmbeddingRequest
from .embedding_run import EmbeddingResult, embed_all
from .errors import HarnessError
from .fixture import SCHEMA_ID, write_fixture
from .hashing import CANONICAL_JSON_RULE, sha256_canonical
from .locks import file_lock
from .profiles import TextProfile, text_profile
from .semantic_text import DOCUMENT_RULE, QUERY_RULE, document_text, query_text, rule
from .vectors import NORMALIZATION

BUILD_LOCK = ".fixture-build.lock"
PAYLOAD_DEFINITIONS = {
    "documents": "canonical JSON of [{doc_id, title, text}] sorted by doc_id, every corpus document",
    "queries": "canonical JSON of [{query_id, text}] sorted by query_id, the test queries only",
    "qrels": "canonical JSON of {query_id: {doc_id: grade}}, the test qrels",
}


@dataclass(frozen=True)
class BuildReport:
    fixture: Path
    archive: Path | None  # None when an existing fixture was reused without one
    documents: int
    queries: int
    qrel_pairs: int
    dimensions: int
    embedded: int
    from_cache: int
    changed: bool
    seconds: float


def obtain_archive(contract: Contract, work_dir: Path, archive: Path | None, url: str | None,
                   deadline: float | None = None) -> ArchiveFile:
    if archive is not None:
        if not archive.is_file():
            problem = "is a directory" if archive.is_dir() else "does not exist"
            raise HarnessError(f"archive {archive} {problem}; pass the path of a BEIR scifact.zip")
        return digest_file(archive.resolve())
    source = url or contract.source_url
    if source is None:
        raise HarnessError(f"contract {contract.name!r} names no download URL; pass --archive")
    pinned = source == contract.source_url
    return fetch_or_reuse(
        source, work_dir / "download" / "scifact.zip",
        expected_bytes=contract.source_archive_bytes if pinned else None,
        expected_md5=contract.source_archive_md5 if pinned else None,
        max_bytes=contract.limits.max_archive_bytes, deadline=deadline_seconds() if deadline is None else deadline,
    )


def payload_hashes(dataset: Dataset) -> dict[str, Any]:
    documents = sorted(({"doc_id": d.doc_id, "title": d.title, "text": d.text} for d in dataset.documents),
                       key=lambda d: d["doc_id"])
    queries = sorted(({"query_id": q.query_id, "text": q.text} for q in dataset.queries),
                     key=lambda q: q["query_id"])
    return {
        "canonical_json": CANONICAL_JSON_RULE,
        "documents": sha256_canonical(documents),
        "queries": sha256_canonical(queries),
        "qrels": sha256_canonical(dataset.qrels),
        "definitions": PAYLOAD_DEFINITIONS,
    }


def _source(archive: ArchiveFile, dataset: Dataset, allow_unpinned: bool) -> dict[str, Any]:
    return {
        "kind": "download" if archive.source_url else "local-file",
        "url": archive.source_url,
        "archive_sha256": archive.sha256,
        "archive_md5": archive.md5,
        "archive_bytes": archive.bytes,
        "members": dataset.members,
        "unused_members": dataset.unused_members,
        "payload_pinned": dataset.pinned,
        "allow_unpinned": allow_unpinned,
    }


def _embedding(embedder: Embedder, result: EmbeddingResult) -> dict[str, Any]:
    identity = embedder.identity()
    return {
        "backend": embedder.backend,
        "model": identity["model"],
        "identity": identity,
        "identity_sha256": sha256_canonical(identity),
        "endpoint": embedder.endpoint(),
        "dimensions": result.dimensions,
        "normalization": NORMALIZATION,
        "truncation_policy": embedder.truncation_policy(),
        "retried_prompts": result.retried,
        "prompts_truncated_by_model": result.model_truncated,
    }


def build_fixture(contract: Contract, *, out: Path, work_dir: Path, embedder: Embedder,
                  archive: Path | None = None, url: str | None = None, allow_unpinned: bool = False,
                  progress: bool = True, profile: TextProfile | None = None,
                  download_deadline: float | None = None) -> BuildReport:
    """Builds sharing a work directory (the CLI's, pytest's, xdist workers') take turns on its lock, so one
    downloads and embeds while the others wait, then find the archive and every vector in place."""
    with file_lock(work_dir / BUILD_LOCK, f"another build in the work directory {work_dir}"):
        return _build(contract, out, work_dir, embedder, archive, url, allow_unpinned, progress,
                      profile or text_profile("scifact-contract", contract), download_deadline)


def _build(contract: Contract, out: Path, work_dir: Path, embedder: Embedder, archive: Path | None, url: str | None,
           allow_unpinned: bool, progress: bool, profile: TextProfile, download_deadline: float | None) -> BuildReport:
    started = time.perf_counter()
    archive_file = obtain_archive(contract, work_dir, archive, url, download_deadline)
    dataset = load_dataset(archive_file.path, contract, allow_unpinned=allow_unpinned)
    limit = profile.max_code_points
    doc_texts = [document_text(d.doc_id, d.title, d.text, limit) for d in dataset.documents]
    query_texts = [query_text(q.query_id, q.text, limit) for q in dataset.queries]
    requests = [EmbeddingRequest(f"document:{d.doc_id}", profile.document_prefix, t.text)
                for d, t in zip(dataset.documents, doc_texts, strict=True)]
    requests += [EmbeddingRequest(f"query:{q.query_id}", profile.query_prefix, t.text)
                 for q, t in zip(dataset.queries, query_texts, strict=True)]
    result = embed_all(requests, embedder, work_dir / "embedding-cache", progress=progress)
    fixture: dict[str, Any] = {
        "schema": SCHEMA_ID,
        "builder_version": BUILDER_VERSION,
        "contract": contract.summary(),
        "profile": profile.record(),
        "source": _source(archive_file, dataset, allow_unpinned),
        "payload_hashes": payload_hashes(dataset),
        "semantic_text": {
            "document_rule": rule(DOCUMENT_RULE, limit),
            "query_rule": rule(QUERY_RULE, limit),
            "max_code_points": limit,
            "document_prefix": profile.document_prefix,
            "query_prefix": profile.query_prefix,
            "documents_truncated": sum(t.truncated for t in doc_texts),
            "queries_truncated": sum(t.truncated for t in query_texts),
        },
        "embedding": _embedding(embedder, result),
        "vectors": {},
        "counts": {"documents": len(dataset.documents), "queries": len(dataset.queries),
                   "qrel_pairs": dataset.qrel_pairs},
        "documents": [{"doc_id": d.doc_id, "title": d.title, "text": d.text, "semantic_text": t.text}
                      for d, t in zip(dataset.documents, doc_texts, strict=True)],
        "queries": [{"query_id": q.query_id, "text": q.text, "semantic_text": t.text,
                     "qrels": dataset.qrels[q.query_id]}
                    for q, t in zip(dataset.queries, query_texts, strict=True)],
    }
    changed = write_fixture(fixture, result.vectors, out)
    return BuildReport(out, archive_file.path, len(dataset.documents), len(dataset.queries), dataset.qrel_pairs,
                       result.dimensions, result.embedded, result.from_cache, changed,
                       time.perf_counter() - started)
