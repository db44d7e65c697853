"""The canonical digests of a dataset's content, by the definitions the fixture states (`payload_hashes`):
documents, test queries and judgements, each as canonical JSON."""

from collections.abc import Iterable, Mapping

from harness.hashing import sha256_canonical


def content_digests(documents: Iterable[tuple[str, str, str]], queries: Iterable[tuple[str, str]],
                    qrels: Mapping[str, Mapping[str, int]]) -> dict[str, str]:
    """Documents (doc_id, title, text), test queries (query_id, text) and judgements, by their stated definitions."""
    return {
        "documents": sha256_canonical(sorted(({"doc_id": i, "title": t, "text": x} for i, t, x in documents),
                                             key=lambda d: d["doc_id"])),
        "queries": sha256_canonical(sorted(({"query_id": i, "text": x} for i, x in queries),
                                           key=lambda q: q["query_id"])),
        "qrels": sha256_canonical(qrels),
    }
