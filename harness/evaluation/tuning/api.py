"""`harness.evaluate`: a run evaluated on measures by name, as trec_eval -c evaluates it.

The query set is the judged queries (the keys of `qrels`). A judged query the run does not rank scores 0 on every
measure (trec_eval -c, and ir_measures); a query of the run without judgements is not counted. A scored run
({qid: {doc_id: score}}, pytrec_eval's and ranx's shape) is ranked as trec_eval ranks it (`trec_order`: score
descending, ties by doc id descending); a ranked run ({qid: [doc_id, ...]}, best first) is taken as given. Every value
is computed by the runner's definitions (`harness.evaluation.measures.metrics`), under trec_eval's conventions unless
others are given, so each is what trec_eval gives (ir_measures for RR@k and Judged@k).
"""

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from harness.errors import HarnessError
from harness.evaluation.measures.metrics import TREC_EVAL, Conventions, Graded
from harness.evaluation.measures.named import DEFAULT_MEASURES, Measure, parse_measure, scorer
from harness.trec_order import trec_order

Qrels = Mapping[str, Mapping[str, int]]
Run = Mapping[str, Mapping[str, float] | Sequence[str]]


class EvaluationInputError(HarnessError, ValueError):
    """Judgements or a run the evaluation cannot read; the message names the query, the document and the fix."""


@dataclass(frozen=True)
class Evaluation:
    """Per judged query, each measure by its name as ir_measures prints it; and each measure's mean over them."""

    measures: tuple[str, ...]
    per_query: dict[str, dict[str, float]]
    mean: dict[str, float]
    conventions: Conventions


def _conventions(given: Conventions | Mapping[str, str] | None) -> Conventions:
    if given is None:
        return TREC_EVAL
    if isinstance(given, Conventions):
        return given
    try:
        return Conventions.declared(given)
    except (TypeError, ValueError) as exc:
        raise EvaluationInputError(f"conventions: {exc}; pass None (trec_eval's: ndcg_gain 'grade', "
                                   "map_denominator 'relevant') or a contract's `measures`") from None


def _measures(names: Iterable[str] | str | None) -> list[Measure]:
    chosen = [names] if isinstance(names, str) else list(DEFAULT_MEASURES if names is None else names)
    if not chosen:
        raise EvaluationInputError("measures is empty; name at least one, such as ['nDCG@10'], or pass None for the "
                                   f"harness's default set ({', '.join(DEFAULT_MEASURES)})")
    parsed = [parse_measure(name) for name in chosen]
    seen: dict[str, str] = {}
    for name, measure in zip(chosen, parsed, strict=True):
        if str(measure) in seen:
            raise EvaluationInputError(f"measures name {str(measure)!r} twice ({seen[str(measure)]!r} and {name!r}); "
                                       "name each measure once")
        seen[str(measure)] = name
    return parsed


def _check_qrels(qrels: Qrels) -> None:
    if not isinstance(qrels, Mapping) or not qrels:
        raise EvaluationInputError(f"qrels must map each judged query id to {{doc_id: grade}}, not {qrels!r:.80}; "
                                   "with no judged query there is nothing to evaluate")
    for qid, judged in qrels.items():
        if not isinstance(judged, Mapping) or not judged:
            raise EvaluationInputError(
                f"qrels[{qid!r}] is {judged!r:.80}, not a non-empty {{doc_id: grade}}; a judged query has at least one "
                "judgement (trec_eval's qrels file cannot hold one without): judge a document or leave the query out")
        for doc_id, grade in judged.items():
            if type(grade) is not int or not isinstance(doc_id, str):
                raise EvaluationInputError(
                    f"qrels[{qid!r}][{doc_id!r}] is {grade!r}: a judgement is an int grade (0 and negative ones are "
                    "not relevant) under a str doc id, as in a TREC qrels file; convert it, e.g. int(grade)")


def _plainly_scored(scores: Mapping[str, float]) -> bool:
    """Whether every doc id is a str and the scores' sum is finite: one pass in C over a query's run; only a run that
    fails it is read score by score (`_fault`)."""
    try:
        return isinstance("".join(scores), str) and math.isfinite(sum(scores.values()))
    except (TypeError, OverflowError):
        return False


def _fault(qid: str, scores: Mapping[str, float]) -> EvaluationInputError | None:
    """The first doc id that is not a str or score that is not a finite number, named; None when there is none (finite
    scores whose sum overflows)."""
    for doc_id, score in scores.items():
        if not isinstance(doc_id, str):
            return EvaluationInputError(f"run[{qid!r}] scores the doc id {doc_id!r}, which is not a str; doc ids are "
                                        "str, as in a TREC run file")
        if not isinstance(score, int | float) or not math.isfinite(score):
            return EvaluationInputError(
                f"run[{qid!r}][{doc_id!r}] is {score!r}, not a finite number, and trec_eval ranks by the score: give "
                "every document a finite score, or leave the document out")
    return None


def _ranking(qid: str, ranked: Mapping[str, float] | Sequence[str]) -> list[str]:
    """The ranking of a run's entry for a judged query, its input checked on the way."""
    if isinstance(ranked, Mapping):
        fault = None if _plainly_scored(ranked) else _fault(qid, ranked)
        if fault is not None:
            raise fault
        return trec_order(ranked)
    if isinstance(ranked, str) or not isinstance(ranked, Sequence):
        raise EvaluationInputError(f"run[{qid!r}] is {ranked!r:.80}: a run maps each query id to {{doc_id: score}} or "
                                   "to a list of doc ids, best first")
    ranking = list(ranked)
    if not all(isinstance(doc_id, str) for doc_id in ranking):
        raise EvaluationInputError(f"run[{qid!r}] lists a doc id that is not a str; doc ids are str")
    if len(set(ranking)) != len(ranking):
        twice = next(doc_id for position, doc_id in enumerate(ranking) if doc_id in ranking[:position])
        raise EvaluationInputError(f"run[{qid!r}] lists the doc id {twice!r} twice; a ranking lists each document "
                                   "once: keep its best rank")
    return ranking


def evaluate(qrels: Qrels, run: Run, measures: Iterable[str] | str | None = None, *,
             conventions: Conventions | Mapping[str, str] | None = None) -> Evaluation:
    """Evaluate `run` against `qrels` ({qid: {doc_id: int grade}}) on `measures` (names as ir_measures prints them,
    `harness.evaluation.measures.named`; None: the harness's default set, the receipts' nine). `run` is {qid:
    {doc_id: score}} (ranked as trec_eval ranks it) or {qid: [doc_id, ...]} (best first). `conventions`: None for
    trec_eval's, else a `Conventions` or a contract's `measures` mapping.

    The query set is the judged queries, qrels' keys: a judged query the run does not rank scores 0 on every
    measure (trec_eval -c); a run's query without judgements is not counted. `mean` is each measure's mean over the
    judged queries, `per_query` each judged query's values, both keyed by the measure's name as ir_measures prints it.
    """
    chosen = _measures(measures)
    settled = _conventions(conventions)
    _check_qrels(qrels)
    if not isinstance(run, Mapping):
        raise EvaluationInputError(f"run must map query ids to {{doc_id: score}} or to ranked doc ids, not "
                                   f"{type(run).__name__}")
    names = tuple(str(measure) for measure in chosen)
    scorers = [(name, scorer(measure, settled)) for name, measure in zip(names, chosen, strict=True)]
    per_query: dict[str, dict[str, float]] = {}
    for qid, judged in qrels.items():
        ranked = run.get(qid)
        graded = Graded(_ranking(qid, ranked) if ranked is not None else [], judged, unique=True)
        per_query[qid] = {name: score(graded) for name, score in scorers}
    count = len(per_query)
    mean = {name: math.fsum(values[name] for values in per_query.values()) / count for name in names}
    return Evaluation(names, per_query, mean, settled)
