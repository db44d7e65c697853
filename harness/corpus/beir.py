"""Parse BEIR's corpus.jsonl, queries.jsonl and qrels TSV, strictly, with file and line in every error."""

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from harness.errors import DatasetFormatError

QRELS_HEADER = ("query-id", "corpus-id", "score")
_INTEGER = re.compile(r"-?[0-9]+")


@dataclass(frozen=True)
class Document:
    doc_id: str
    title: str
    text: str


@dataclass(frozen=True)
class Query:
    query_id: str
    text: str


def _lines(data: bytes, file: str) -> Iterator[tuple[int, str]]:
    """Yield (line number, line) without line terminators; only a final newline may end the file."""
    if data.startswith(b"\xef\xbb\xbf"):
        raise DatasetFormatError(file, 1, "starts with a UTF-8 byte-order mark; BEIR files have none")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad_line = data[: exc.start].count(b"\n") + 1
        raise DatasetFormatError(file, bad_line, f"is not valid UTF-8 ({exc.reason})") from exc
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for number, line in enumerate(lines, start=1):
        yield number, line.removesuffix("\r")


def _json_objects(data: bytes, file: str) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, line in _lines(data, file):
        if not line.strip():
            raise DatasetFormatError(file, number, "is blank; every line must be one JSON object")
        try:
            value = json.loads(line, parse_constant=_refuse_constant)
        except ValueError as exc:
            raise DatasetFormatError(file, number, f"is not valid JSON: {exc}") from exc
        if not isinstance(value, dict):
            raise DatasetFormatError(file, number, f"holds a JSON {type(value).__name__}, not an object")
        yield number, value


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def _string_field(record: dict[str, Any], key: str, file: str, line: int, *, required: bool = True) -> str:
    if key not in record:
        if required:
            raise DatasetFormatError(file, line, f"has no {key!r} field")
        return ""
    value = record[key]
    if not isinstance(value, str):
        raise DatasetFormatError(file, line, f"field {key!r} is a {type(value).__name__}, not a string")
    return value


def _id_field(record: dict[str, Any], file: str, line: int, seen: set[str]) -> str:
    value = _string_field(record, "_id", file, line)
    if not value or value != value.strip():
        raise DatasetFormatError(file, line, f"has an empty or space-padded _id {value!r}")
    if value in seen:
        raise DatasetFormatError(file, line, f"repeats the id {value!r}")
    seen.add(value)
    return value


def parse_corpus(data: bytes, file: str) -> list[Document]:
    seen: set[str] = set()
    documents = []
    for line, record in _json_objects(data, file):
        doc_id = _id_field(record, file, line, seen)
        documents.append(
            Document(doc_id, _string_field(record, "title", file, line, required=False),
                     _string_field(record, "text", file, line))
        )
    return documents


def parse_queries(data: bytes, file: str) -> list[Query]:
    seen: set[str] = set()
    queries = []
    for line, record in _json_objects(data, file):
        query_id = _id_field(record, file, line, seen)
        queries.append(Query(query_id, _string_field(record, "text", file, line)))
    return queries


def parse_qrels(data: bytes, file: str) -> dict[str, dict[str, int]]:
    """Return {query_id: {doc_id: grade}}; the header row is required, CRLF and LF both accepted."""
    qrels: dict[str, dict[str, int]] = {}
    rows = _lines(data, file)
    first = next(rows, None)
    if first is None or tuple(first[1].split("\t")) != QRELS_HEADER:
        found = first[1] if first else "an empty file"
        raise DatasetFormatError(file, 1, f"header must be {chr(9).join(QRELS_HEADER)!r}, found {found!r}")
    for number, line in rows:
        fields = line.split("\t")
        if len(fields) != 3 or not all(fields):
            raise DatasetFormatError(file, number, f"needs 3 tab-separated fields, found {line!r}")
        query_id, doc_id, score = fields
        if not _INTEGER.fullmatch(score):
            raise DatasetFormatError(file, number, f"grade {score!r} is not an integer")
        grade = int(score)
        judged = qrels.setdefault(query_id, {})
        if doc_id in judged:
            raise DatasetFormatError(file, number, f"judges the pair ({query_id}, {doc_id}) twice")
        judged[doc_id] = grade
    return qrels


def check_references(
    qrels: dict[str, dict[str, int]], documents: list[Document], queries: list[Query], file: str
) -> None:
    doc_ids = {document.doc_id for document in documents}
    query_ids = {query.query_id for query in queries}
    for query_id, judged in qrels.items():
        if query_id not in query_ids:
            raise DatasetFormatError(file, None, f"names query {query_id!r}, which queries.jsonl does not have")
        for doc_id in judged:
            if doc_id not in doc_ids:
                raise DatasetFormatError(
                    file, None, f"query {query_id!r} judges document {doc_id!r}, which corpus.jsonl does not have"
                )
