"""The validator's own reading of a run file (written apart from the harness's reader): TREC lines
`qid Q0 docno rank score tag`, or a JSON object {qid: {docno: score}}. Each query's documents are ordered as trec_eval
orders them, score descending and then docno descending (strcmp), the rank column unused. A file that does not read
cleanly yields a problem in words, never a ranking."""

import json
import math
from typing import Any

Ranking = list[tuple[str, float]]


class Unreadable(Exception):
    """The run file does not read as a run."""


def _trec_eval_order(pairs: dict[str, float]) -> Ranking:
    # trec_eval's comparison: higher sim first; equal sims by docno, the larger string first
    by_docno = sorted(pairs.items(), key=lambda pair: pair[0].encode("utf-8"), reverse=True)
    return sorted(by_docno, key=lambda pair: -pair[1])  # stable: equal scores keep the docno order


def _number(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or "_" in text or text.strip().lower().lstrip("+-") in ("inf", "infinity", "nan"):
        raise ValueError(text)
    return value


def _trec(text: str) -> dict[str, Ranking]:
    runs: dict[str, dict[str, float]] = {}
    tags = set()
    for index, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if len(parts) != 6:
            raise Unreadable(f"line {index} has {len(parts)} fields, not 6")
        qid, _, docno, rank, score, tag = parts
        try:
            int(rank)
            value = _number(score)
        except ValueError as exc:
            raise Unreadable(f"line {index}: rank {rank!r} or score {score!r} is not a number") from exc
        tags.add(tag)
        ranked = runs.setdefault(qid, {})
        if docno in ranked:
            raise Unreadable(f"line {index}: {qid} {docno} appears twice")
        ranked[docno] = value
    if len(tags) > 1:
        raise Unreadable(f"the lines carry {len(tags)} run tags, not one")
    return {qid: _trec_eval_order(ranked) for qid, ranked in runs.items()}


def _pairs_without_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise Unreadable(f"the key {key!r} appears twice in one object")
        result[key] = value
    return result


def _json(text: str) -> dict[str, Ranking]:
    def refuse(constant: str) -> float:
        raise Unreadable(f"{constant} is not a number")
    try:
        document = json.loads(text, object_pairs_hook=_pairs_without_repeats, parse_constant=refuse)
    except json.JSONDecodeError as exc:
        raise Unreadable(f"not JSON: {exc}") from exc
    if not isinstance(document, dict):
        raise Unreadable("not a JSON object of queries")
    rankings = {}
    for qid, scores in document.items():
        if not isinstance(scores, dict) or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in scores.values()):
            raise Unreadable(f"query {qid!r} does not map documents to finite numbers")
        rankings[qid] = _trec_eval_order({doc: float(v) for doc, v in scores.items()})
    return rankings


def read_rankings(data: bytes, fmt: str) -> dict[str, Ranking]:
    """The rankings of a run file in its recorded format ("trec" or "json"), or Unreadable with the reason."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Unreadable(f"not UTF-8 ({exc.reason})") from exc
    if fmt == "trec":
        return _trec(text)
    if fmt == "json":
        return _json(text)
    raise Unreadable(f"the format {fmt!r} is neither trec nor json")
