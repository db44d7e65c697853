"""The canonical content of a dataset, and the contract's semantic-text rule, as the validator computes them.

Definitions (the fixture states the same ones in its `payload_hashes.definitions`; these are re-implemented
here, not imported): documents = canonical JSON of [{doc_id, title, text}] sorted by doc_id; queries =
canonical JSON of [{query_id, text}] sorted by query_id, the test queries only; qrels = canonical JSON of
{query_id: {doc_id: grade}}; semantic texts = canonical JSON of {id: semantic text}, documents and queries
apart.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..core.digests import sha256_canonical

Qrels = dict[str, dict[str, int]]


@dataclass(frozen=True)
class Content:
    """Documents as (doc_id, title, text), test queries as (query_id, text), and the test judgements."""

    documents: tuple[tuple[str, str, str], ...]
    queries: tuple[tuple[str, str], ...]
    qrels: Qrels

    @classmethod
    def of_fixture(cls, fixture: Mapping[str, Any]) -> "Content":
        return cls(tuple((d["doc_id"], d["title"], d["text"]) for d in fixture["documents"]),
                   tuple((q["query_id"], q["text"]) for q in fixture["queries"]),
                   {q["query_id"]: q["qrels"] for q in fixture["queries"]})

    def digests(self) -> dict[str, str]:
        documents = sorted(({"doc_id": i, "title": t, "text": x} for i, t, x in self.documents),
                           key=lambda d: d["doc_id"])
        queries = sorted(({"query_id": i, "text": x} for i, x in self.queries), key=lambda q: q["query_id"])
        return {"documents": sha256_canonical(documents), "queries": sha256_canonical(queries),
                "qrels": sha256_canonical(self.qrels)}

    def shape(self) -> dict[str, int]:
        return {"documents": len(self.documents), "test_queries": len(self.queries),
                "test_qrel_pairs": sum(len(judged) for judged in self.qrels.values())}


def document_semantic_text(title: str, text: str, ceiling: int) -> str:
    """Title and text, each stripped, joined by one space when both are non-empty; the first `ceiling` code
    points (Python indexes strings by code point, so no character is ever split)."""
    return " ".join(part for part in (title.strip(), text.strip()) if part)[:ceiling]


def query_semantic_text(text: str, ceiling: int) -> str:
    return text.strip()[:ceiling]


def semantic_texts(content: Content, ceiling: int) -> dict[str, dict[str, str]]:
    return {"documents": {i: document_semantic_text(t, x, ceiling) for i, t, x in content.documents},
            "queries": {i: query_semantic_text(x, ceiling) for i, x in content.queries}}


def semantic_digests(texts: Mapping[str, Mapping[str, str]]) -> dict[str, str]:
    return {"document_semantic_texts": sha256_canonical(dict(texts["documents"])),
            "query_semantic_texts": sha256_canonical(dict(texts["queries"]))}


def fixture_semantic_texts(fixture: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    return {"documents": {d["doc_id"]: d["semantic_text"] for d in fixture["documents"]},
            "queries": {q["query_id"]: q["semantic_text"] for q in fixture["queries"]}}


def first_differences(expected: Mapping[str, Any], found: Mapping[str, Any], limit: int = 3) -> list[str]:
    """Ids whose value differs, is missing or is extra, in id order (the first few), for a failure's detail."""
    ids: Iterable[str] = sorted(set(expected) | set(found))
    return [i for i in ids if expected.get(i) != found.get(i)][:limit]
