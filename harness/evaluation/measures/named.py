"""Measures by name, written exactly as ir_measures prints them: nDCG@10, P@5, R@100, AP@10, RR@10, Success@1,
Judged@10, and a relevance threshold for the binary families, P(rel=2)@5.

`parse_measure` reads a name (refusing every other spelling by name, with the ir_measures spelling of a near miss
such as trec_eval's ndcg_cut_10 or ranx's mrr@10), `value` computes a measure of one ranking through the one
definition of each family in metrics.py, and `DEFAULT_NAMES` names the receipts' metrics.

Uncut forms: nDCG, AP, RR and Judged without a cutoff read the whole ranking given (ir_measures takes them: trec_eval's
ndcg, map and recip_rank); P, R and Success need one, as in ir_measures. Where rows keep a ranking of a fixed depth
(`max_cutoff`), an uncut form and a cutoff beyond that depth are refused, naming the depth.
"""

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial

from harness.errors import HarnessError
from harness.evaluation.measures import metrics
from harness.evaluation.measures.metrics import Conventions, Graded
from harness.evaluation.measures.metrics import average_precision as _average_precision
from harness.evaluation.measures.metrics import judged_share as _judged
from harness.evaluation.measures.metrics import ndcg as _ndcg
from harness.evaluation.measures.metrics import precision as _precision
from harness.evaluation.measures.metrics import recall as _recall
from harness.evaluation.measures.metrics import reciprocal_rank as _reciprocal_rank
from harness.evaluation.measures.metrics import success as _success

FAMILIES = ("nDCG", "P", "R", "AP", "RR", "Success", "Judged")
BINARY = ("P", "R", "AP", "RR", "Success")  # the families a relevance threshold applies to
UNCUT = ("nDCG", "AP", "RR", "Judged")  # the families that may go without a cutoff (the whole ranking)
ACCEPTED = ("nDCG@k, P@k, R@k, AP@k, RR@k, Success@k, Judged@k (k a positive integer); P, R, AP, RR and Success "
            "with a relevance threshold as P(rel=2)@5")
# the receipts' metric keys -> their names
DEFAULT_NAMES = {
    "ndcg_at_10": "nDCG@10", "recall_at_1": "R@1", "recall_at_5": "R@5", "recall_at_10": "R@10",
    "mrr_at_10": "RR@10", "map_at_10": "AP@10", "success_at_1": "Success@1", "success_at_5": "Success@5",
    "success_at_10": "Success@10", "recall_at_100": "R@100", "ndcg_at_100": "nDCG@100",
}
DEFAULT_MEASURES = tuple(DEFAULT_NAMES[key] for key in metrics.METRIC_KEYS)  # the receipts' nine, in their order
# spellings of other tools (trec_eval, ranx, ir_measures' aliases), lower-cased -> the family ir_measures prints
_ALIASES = {
    "ndcg": "nDCG", "ndcg_cut": "nDCG", "p": "P", "precision": "P", "r": "R", "recall": "R", "ap": "AP",
    "map": "AP", "map_cut": "AP", "rr": "RR", "mrr": "RR", "recip_rank": "RR", "success": "Success",
    "hit_rate": "Success", "hitrate": "Success", "judged": "Judged",
}
_NAME = re.compile(r"(?P<family>[A-Za-z_]+)(?:\((?P<params>[^()]*)\))?(?:@(?P<cutoff>.*))?")
_NEAR = re.compile(r"(?P<family>[A-Za-z_]+?)[_.@]?(?P<cutoff>[0-9]+)?")


class MeasureNameError(HarnessError, ValueError):
    """A measure's name the harness does not read; the message names it, what is wrong and the forms accepted."""


@dataclass(frozen=True)
class Measure:
    family: str
    cutoff: int | None = None  # None: the whole ranking
    rel: int = 1  # a document is relevant when its grade is >= rel

    def __post_init__(self) -> None:
        """A measure made directly, not by `parse_measure`, holds to the same rules."""
        if (self.family not in FAMILIES or (self.cutoff is None and self.family not in UNCUT)
                or (self.cutoff is not None and (type(self.cutoff) is not int or self.cutoff < 1))
                or type(self.rel) is not int or self.rel < 1 or (self.rel != 1 and self.family not in BINARY)):
            raise MeasureNameError(f"Measure({self.family!r}, cutoff={self.cutoff!r}, rel={self.rel!r}) is not a "
                                   f"measure: {ACCEPTED}")

    def __str__(self) -> str:
        """The name as ir_measures prints it (rel=1, the default, is not written)."""
        return (self.family + (f"(rel={self.rel})" if self.rel != 1 else "")
                + (f"@{self.cutoff}" if self.cutoff is not None else ""))


def _refuse(text: str, problem: str) -> MeasureNameError:
    return MeasureNameError(f"measure {text!r}: {problem}. Measures are named as ir_measures prints them: {ACCEPTED}")


def _near_miss(text: str) -> str | None:
    """The ir_measures spelling of another tool's name for a measure (ndcg_cut_10, P_5, MAP@10), if any."""
    found = _NEAR.fullmatch(text.strip())
    if found is None:
        return None
    spelled = found["family"].lower().rstrip("_")
    family = _ALIASES.get(spelled) or _ALIASES.get(spelled.removesuffix("_cut"))
    if family is None:
        return None
    return family + (f"@{int(found['cutoff'])}" if found["cutoff"] else "")


def _unknown_family(text: str, family: str) -> MeasureNameError:
    suggestion = _near_miss(text.replace(" ", ""))
    hint = f"; ir_measures writes this one {suggestion!r}" if suggestion and suggestion != text else ""
    return _refuse(text, f"no family of measures is called {family!r} (the families, as ir_measures spells them: "
                         f"{', '.join(FAMILIES)}){hint}")


def _rel(text: str, family: str, params: str) -> int:
    name, _, given = params.replace(" ", "").partition("=")
    if family not in BINARY:
        why = ("its gains are the grades themselves (a grade <= 0 gains nothing)" if family == "nDCG"
               else "it counts every judged document, whatever its grade")
        raise _refuse(text, f"{family} takes no parameter and no relevance threshold: {why}; write {family}@10")
    if name != "rel":
        raise _refuse(text, f"{params!r} is not a parameter the harness reads: {family} takes only rel=, as "
                            f"{family}(rel=2)@10")
    if not re.fullmatch(r"-?[0-9]+", given):
        raise _refuse(text, f"rel={given} is not an integer; write rel=2 (a grade of 2 or more is relevant)")
    if int(given) < 1:
        raise _refuse(text, f"rel={int(given)} would count documents graded {int(given)} as relevant (trec_eval reads "
                            "a grade <= 0 as not relevant); the threshold is an integer of 1 or more")
    return int(given)


def _cutoff(text: str, bare: str, given: str | None, max_cutoff: int | None) -> int | None:
    """The cutoff `given` after the @ of `text` (`bare`: the name without it), checked."""
    family = bare.partition("(")[0]
    if given is None:
        if family not in UNCUT:
            raise _refuse(text, f"{family} needs a cutoff: write {bare}@k, such as {bare}@10")
        if max_cutoff is not None:
            raise _refuse(text, f"without a cutoff {bare} reads the whole ranking, but the rows keep {max_cutoff} "
                                f"ranks: write {bare}@{max_cutoff}")
        return None
    if not given:
        problem = "nothing follows the @"
    elif not re.fullmatch(r"-?[0-9]+", given):
        problem = f"the cutoff {given!r} is not an integer"
    elif int(given) <= 0:
        problem = f"a cutoff of {int(given)} ranks nothing; the cutoff is a rank of 1 or more"
    elif given.startswith(("0", "-")):
        problem = f"the cutoff {given!r} is written with a leading zero"
    elif max_cutoff is not None and int(given) > max_cutoff:
        return_to = f"{bare}@{max_cutoff}"
        raise _refuse(text, f"the cutoff {given} goes beyond the {max_cutoff} ranks the rows keep; write a cutoff of "
                            f"{max_cutoff} or less, such as {return_to}")
    else:
        return int(given)
    raise _refuse(text, f"{problem}; write {bare}@10")


def parse_measure(text: str, *, max_cutoff: int | None = None) -> Measure:
    """The measure `text` names. `max_cutoff`: the depth of the rankings it will read (the rows keep 100 ranks), which
    refuses an uncut form and a deeper cutoff; None (the API: the whole given ranking) admits both."""
    if not isinstance(text, str):
        raise MeasureNameError(f"a measure's name is a string such as 'nDCG@10', not {text!r}")
    found = _NAME.fullmatch(text)
    if found is None:
        suggestion = _near_miss(text.replace(" ", ""))
        hint = f"; ir_measures writes this one {suggestion!r}" if suggestion else ""
        raise _refuse(text, f"not written as FAMILY@k or FAMILY(rel=N)@k{hint}")
    family = found["family"]
    if family not in FAMILIES:
        raise _unknown_family(text, family)
    rel = 1 if found["params"] is None else _rel(text, family, found["params"])
    bare = family + (f"(rel={rel})" if rel != 1 else "")
    return Measure(family, _cutoff(text, bare, found["cutoff"], max_cutoff), rel)


def scorer(measure: Measure, conventions: Conventions) -> Callable[[Graded], float]:
    """`measure` as a function of a ranking already read against its judgements (`metrics.Graded`), chosen once for
    every query it will score."""
    family, k, rel = measure.family, measure.cutoff, measure.rel
    if family == "nDCG":
        return partial(_ndcg, k=k, conventions=conventions)
    if family == "P":
        return partial(_precision, k=k or 1, rel=rel)
    if family == "AP":
        return partial(_average_precision, k=k, conventions=conventions, rel=rel)
    if family == "Judged":
        return partial(_judged, k=k)
    return partial({"R": _recall, "RR": _reciprocal_rank, "Success": _success}[family], k=k, rel=rel)


def of_graded(measure: Measure, graded: Graded, conventions: Conventions) -> float:
    """`measure` of a ranking already read against its judgements."""
    return scorer(measure, conventions)(graded)


def value(measure: Measure, ranking: Sequence[str], qrels: Mapping[str, int], conventions: Conventions) -> float:
    """`measure` of `ranking` (unique doc ids, best first) against `qrels` ({doc_id: grade}, grades may be 0 or
    negative) under `conventions`; under trec_eval's (metrics.TREC_EVAL) it is trec_eval's number (ndcg_cut, P,
    recall, map_cut, success; RR@k and Judged@k as ir_measures computes them)."""
    return of_graded(measure, Graded(ranking, qrels), conventions)
