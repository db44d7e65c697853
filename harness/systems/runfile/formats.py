"""A run made outside the harness, read from its file's bytes: TREC (`qid Q0 docno rank score tag`, one line per
ranked document, as trec_eval reads it) or JSON `{query id: {doc id: score}}` (a ranx run saved as JSON, and BEIR's
results dict as `json.dump` writes it: the same shape).

Every line (every entry) is checked against the dataset: six fields, a finite decimal score, an integer rank, one
run tag in the file, each (query, document) once, every query and document one of the dataset's. A problem is named
with the file, its line (its entry) and the fix. A query's ranking is its documents by score descending, then doc id
descending: trec_eval's order, the rank column ignored as trec_eval ignores it (`TIE_RULE`).
"""

import math
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from harness.errors import HarnessError
from harness.json_input import strict_loads
from harness.trec_order import trec_order

FORMATS = ("trec", "json")
TIE_RULE = ("as trec_eval orders a run: score descending, then doc id descending by byte order; the rank column is "
            "ignored, as trec_eval ignores it")
TREC_FIELDS = "qid Q0 docno rank score tag"
_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_INTEGER = re.compile(r"[+-]?\d+")


class RunFileError(HarnessError):
    """A run file that cannot be read as the run of this dataset: its file, line (or entry) and the fix."""

    def __init__(self, file: str, where: str | None, problem: str) -> None:
        self.file, self.where = file, where
        super().__init__(f"{file}{', ' + where if where else ''}: {problem}")


@dataclass(frozen=True)
class RunFile:
    """A run's rankings, each query's documents in trec_eval's order, with the file's format and run tag."""

    format: str
    tag: str | None
    rankings: dict[str, list[tuple[str, float]]]
    entries: int


def trec_ordered(scores: Mapping[str, float]) -> list[tuple[str, float]]:
    """(doc id, score) by score descending, then doc id descending: trec_eval's order (harness/trec_order.py)."""
    return [(doc_id, scores[doc_id]) for doc_id in trec_order(scores)]


def detect_format(data: bytes) -> str:
    """JSON when the first character that is not white space opens an object, else TREC."""
    return "json" if data.lstrip()[:1] == b"{" else "trec"


@dataclass(frozen=True)
class _Dataset:
    file: str
    queries: Collection[str]
    documents: Collection[str]

    def check(self, query: str, document: str, where: str) -> None:
        if query not in self.queries:
            raise RunFileError(self.file, where, f"query {query!r} is not one of the dataset's {len(self.queries)} "
                               "judged queries: a run of this dataset ranks its test queries by their ids in "
                               "queries.jsonl; remove the line or run the system on this dataset's queries")
        if document not in self.documents:
            raise RunFileError(self.file, where, f"document {document!r} is not one of the dataset's "
                               f"{len(self.documents)} documents (corpus.jsonl's _id): a run of another corpus, or "
                               "ids rewritten on the way")


def _score(text: str, file: str, where: str) -> float:
    value = float(text) if _DECIMAL.fullmatch(text) else math.nan
    if not math.isfinite(value):
        raise RunFileError(file, where, f"the score {text!r} is not a finite decimal number")
    return value


def read_trec(data: bytes, dataset: _Dataset) -> RunFile:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        at = data[: exc.start].count(b"\n") + 1
        raise RunFileError(dataset.file, f"line {at}", f"is not UTF-8 ({exc.reason}); write the run as UTF-8") from exc
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the last line
    scores: dict[str, dict[str, float]] = {}
    seen: dict[tuple[str, str], int] = {}
    tag: tuple[str, int] | None = None
    for number, line in enumerate(lines, start=1):
        where = f"line {number}"
        fields = line.split()
        if len(fields) != 6:
            empty = " (an empty line)" if not fields else ""
            raise RunFileError(dataset.file, where, f"has {len(fields)} fields{empty}; a TREC run line has 6, "
                               f"'{TREC_FIELDS}', separated by white space")
        query, _, document, rank, score, run_tag = fields
        if not _INTEGER.fullmatch(rank):
            raise RunFileError(dataset.file, where, f"the rank {rank!r} is not an integer (fields: {TREC_FIELDS})")
        value = _score(score, dataset.file, where)
        if tag is None:
            tag = (run_tag, number)
        elif run_tag != tag[0]:
            raise RunFileError(dataset.file, where, f"its run tag {run_tag!r} is not line {tag[1]}'s {tag[0]!r}: a "
                               "file holds one run; split the runs into files of their own")
        earlier = seen.setdefault((query, document), number)
        if earlier != number:
            raise RunFileError(dataset.file, where, f"query {query!r} ranks document {document!r} again (line "
                               f"{earlier} ranked it first): each document once per query, as trec_eval requires")
        dataset.check(query, document, where)
        scores.setdefault(query, {})[document] = value
    if not scores:
        raise RunFileError(dataset.file, None, f"holds no run line; a TREC run has one line '{TREC_FIELDS}' per "
                           "ranked document")
    return RunFile("trec", None if tag is None else tag[0],
                   {query: trec_ordered(ranked) for query, ranked in scores.items()}, len(lines))


def read_json(data: bytes, dataset: _Dataset) -> RunFile:
    try:
        document = strict_loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise RunFileError(dataset.file, None, f"is not UTF-8 ({exc.reason})") from exc
    except ValueError as exc:  # JSONDecodeError included: it names the line and column
        raise RunFileError(dataset.file, None, f"is not a strict JSON run ({exc}); write {{query id: {{doc id: "
                           "score}}, as ranx's Run.save and json.dump of BEIR's results do") from exc
    if not isinstance(document, dict) or not document:
        raise RunFileError(dataset.file, None, "must be a non-empty JSON object {query id: {doc id: score}}")
    rankings: dict[str, list[tuple[str, float]]] = {}
    entries = 0
    for query, ranked in document.items():
        if not isinstance(ranked, dict):
            raise RunFileError(dataset.file, f"query {query!r}", "must map each doc id to its score, "
                               f"not hold a {type(ranked).__name__}")
        for doc, score in ranked.items():
            where = f"query {query!r}, document {doc!r}"
            if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
                raise RunFileError(dataset.file, where, f"the score {score!r} is not a finite number")
            dataset.check(query, doc, where)
            entries += 1
        rankings[query] = trec_ordered({doc: float(score) for doc, score in ranked.items()})
    return RunFile("json", None, rankings, entries)


def read_run(data: bytes, file: str, fmt: str, queries: Collection[str], documents: Collection[str]) -> RunFile:
    """The run `data` holds, in `fmt` ("trec", "json", or "auto": by its first character), for a dataset of these
    query and document ids. `file` names the file in every error."""
    if fmt not in (*FORMATS, "auto"):
        raise RunFileError(file, None, f"the format {fmt!r} is not one of trec, json, auto")
    chosen = detect_format(data) if fmt == "auto" else fmt
    dataset = _Dataset(file, queries, documents)
    return read_trec(data, dataset) if chosen == "trec" else read_json(data, dataset)
