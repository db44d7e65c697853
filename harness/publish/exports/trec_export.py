"""TREC run and qrels files that evaluate to the receipt's own ranking, in trec_eval and every tool built like it.

trec_eval ignores the order of a run file's lines: per query it sorts by score, descending, and breaks ties
by doc id, descending. The receipts break ties the other way (doc id ascending), and BM25 and identical
vectors do tie, so a run file carrying the original scores could evaluate differently from the receipt.
The score column is therefore derived from the rank, score = n - rank + 1 for a query with n results
(n, n - 1, ..., 1): strictly decreasing, so the sort reproduces the receipt's order whatever the doc ids.
The original scores are kept beside, in `<run name>.scores.tsv` (query id, rank, doc id, score as written
in the rows), so nothing of the receipt is lost. A query with no results has no line in the run file;
count it as zero (trec_eval -c) to get the receipt's mean over every query.

Rows that carry a depth-100 ranking (the diagnostic beside the top-10 claim) also give
`<run name>.depth100.run`, by the same rule over that ranking: trec_eval's recall_100 and ndcg_cut_100 over it
are the rows' Recall@100 and nDCG@100. The top-10 run stays the claim's ranking.
"""

from collections.abc import Sequence
from typing import Any

from harness.errors import HarnessError

RUN_RULE = ("score = n - rank + 1 for a query with n results: strictly decreasing in rank; the original scores are in "
            ".scores.tsv")


class ExportError(HarnessError):
    """An id the TREC formats cannot carry (whitespace, or empty)."""


def _plain(value: str, what: str) -> str:
    if not value or any(c.isspace() for c in value):
        raise ExportError(f"{what} {value!r} is empty or holds whitespace, which the TREC formats cannot carry")
    return value


def run_name(dataset: str, mode: str, split: str) -> str:
    return f"{dataset}-{mode}-{split}.run"


def scores_name(dataset: str, mode: str, split: str) -> str:
    return f"{dataset}-{mode}-{split}.scores.tsv"


def qrels_name(dataset: str, split: str) -> str:
    return f"{dataset}-{split}.qrels"


def depth_run_name(dataset: str, mode: str, split: str) -> str:
    return f"{dataset}-{mode}-{split}.depth100.run"


def _lines(query: str, doc_ids: Sequence[str], tag: str) -> list[str]:
    return [f"{query} Q0 {_plain(str(doc_id), 'doc id')} {rank} {len(doc_ids) - rank + 1} {_plain(tag, 'run tag')}"
            for rank, doc_id in enumerate(doc_ids, start=1)]


def run_text(rows: Sequence[dict[str, Any]], tag: str) -> str:
    """`qid Q0 docid rank score tag`, one line per result, in rank order."""
    lines = []
    for row in rows:
        query = _plain(str(row["query_id"]), "query id")
        results = row["results"]
        for expected, result in enumerate(results, start=1):
            if result["rank"] != expected:
                raise ExportError(f"query {query}: result ranks are not 1..n in order (found {result['rank']} at "
                                  f"position {expected})")
        lines += _lines(query, [result["doc_id"] for result in results], tag)
    return "".join(line + "\n" for line in lines)


def depth_run_text(rows: Sequence[dict[str, Any]], tag: str) -> str:
    """The depth-100 rankings as a TREC run, by the rule of `run_text`."""
    lines = []
    for row in rows:
        lines += _lines(_plain(str(row["query_id"]), "query id"), row["depth_ranking"]["doc_ids"], tag)
    return "".join(line + "\n" for line in lines)


def scores_text(rows: Sequence[dict[str, Any]]) -> str:
    """The original scores: `query_id<TAB>rank<TAB>doc_id<TAB>score`, the score as the rows' JSON writes it."""
    lines = ["query_id\trank\tdoc_id\tscore"]
    lines += [f"{row['query_id']}\t{result['rank']}\t{result['doc_id']}\t{result['score']!r}"
              for row in rows for result in row["results"]]
    return "".join(line + "\n" for line in lines)


def qrels_text(rows: Sequence[dict[str, Any]]) -> str:
    """`qid 0 docid grade` for every judged document of every query of the split, in split order."""
    lines = []
    for row in rows:
        query = _plain(str(row["query_id"]), "query id")
        for doc_id, grade in sorted(row["qrels"].items()):
            lines.append(f"{query} 0 {_plain(str(doc_id), 'doc id')} {int(grade)}")
    return "".join(line + "\n" for line in lines)
