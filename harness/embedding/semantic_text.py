"""The text that gets embedded: one rule for documents, one for queries, one ceiling for both."""

from dataclasses import dataclass

from harness.errors import EmbeddingError

DOCUMENT_RULE = "title.strip() + ' ' + text.strip() (the space only when both are non-empty)"
QUERY_RULE = "text.strip()"


def rule(base: str, max_code_points: int | None) -> str:
    return base + (f", then the first {max_code_points} code points" if max_code_points else ", whole")


@dataclass(frozen=True)
class SemanticText:
    text: str
    truncated: bool


def cut(text: str, max_code_points: int | None) -> SemanticText:
    """Python strings index by code point, so a non-BMP character counts once and is never split.
    No ceiling (None) keeps the whole text."""
    if max_code_points is None:
        return SemanticText(text, False)
    return SemanticText(text[:max_code_points], len(text) > max_code_points)


def document_text(doc_id: str, title: str, text: str, max_code_points: int | None) -> SemanticText:
    joined = " ".join(part for part in (title.strip(), text.strip()) if part)
    if not joined:
        raise EmbeddingError(f"document {doc_id!r} has an empty title and text; there is nothing to embed")
    return cut(joined, max_code_points)


def query_text(query_id: str, text: str, max_code_points: int | None) -> SemanticText:
    stripped = text.strip()
    if not stripped:
        raise EmbeddingError(f"query {query_id!r} has empty text; there is nothing to embed")
    return cut(stripped, max_code_points)
