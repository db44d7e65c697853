"""Measures by name, as ir_measures prints them, read and computed by the validator on its own: nDCG@k, P@k, R@k,
AP@k, RR@k, Success@k, Judged@k, and P, R, AP, RR and Success with a relevance threshold, P(rel=2)@5.

Written from the stated definitions, not from the runner's code, under the conventions `ir_metrics.Conventions`
holds (the validator's own pins', trec_eval's for a dataset it holds no pins for):
- relevant: grade >= rel (rel 1 unless the name says otherwise); an unjudged document has no grade;
- nDCG@k: sum of gain(grade) / log2(rank + 1) over the top k, over the same sum of the judged grades sorted best
  first; gain(g) is 0 for g <= 0, g ("grade") or 2^g - 1 ("exponential");
- P@k = relevant in the top k / k; R@k = relevant in the top k / relevant;
- AP@k = sum of the precision at each relevant rank in the top k / relevant ("relevant"), or / min(relevant, k)
  ("relevant_within_k");
- RR@k = 1 / the first relevant rank in the top k; Success@k = 1 when some relevant document is in the top k;
- Judged@k = judged documents in the top k / the documents in the top k (min(k, ranked));
- 0 when no document is relevant (Judged aside) or nothing is ranked.
nDCG, AP, RR and Judged without a cutoff read the whole ranking, and are refused, as a cutoff deeper than the
ranking kept is, where a depth is given. No check reads these yet: rows do not carry chosen measures.
"""

import math
import re
from dataclasses import dataclass

from .ir_metrics import MAX_GRADE, Conventions

KINDS = {"nDCG": "graded", "P": "binary", "R": "binary", "AP": "binary", "RR": "binary", "Success": "binary",
         "Judged": "judged"}
WHOLE_RANKING = {"nDCG", "AP", "RR", "Judged"}
FORMS = ("the forms read: nDCG@k, P@k, R@k, AP@k, RR@k, Success@k, Judged@k for a positive integer k, and "
         "P(rel=N)@k, R(rel=N)@k, AP(rel=N)@k, RR(rel=N)@k, Success(rel=N)@k for N >= 1")
# other tools' spellings, lower-cased, and the family ir_measures prints for each
OTHER_SPELLINGS = {"ndcg": "nDCG", "ndcg_cut": "nDCG", "p": "P", "precision": "P", "r": "R", "recall": "R",
                   "ap": "AP", "map": "AP", "map_cut": "AP", "rr": "RR", "mrr": "RR", "recip_rank": "RR",
                   "success": "Success", "hit_rate": "Success", "judged": "Judged"}


class NameRefused(ValueError):
    """A measure's name this reader does not read."""


@dataclass(frozen=True)
class NamedMeasure:
    family: str
    k: int | None
    rel: int

    @property
    def name(self) -> str:
        threshold = "" if self.rel == 1 else f"(rel={self.rel})"
        depth = "" if self.k is None else f"@{self.k}"
        return f"{self.family}{threshold}{depth}"


def _refused(name: str, why: str) -> NameRefused:
    return NameRefused(f"the measure {name!r} is refused: {why} ({FORMS})")


def _other_tool(name: str) -> str | None:
    """ir_measures' name for a measure spelled as trec_eval (ndcg_cut_10, P_5, map_cut.10) or ranx (mrr@10) spell it."""
    head = name.replace(" ", "").rstrip("0123456789")
    digits = name.replace(" ", "")[len(head):]
    head = head.rstrip("_.@").lower()
    family = OTHER_SPELLINGS.get(head, OTHER_SPELLINGS.get(head[:-4] if head.endswith("_cut") else ""))
    if family is None:
        return None
    return family + ("@" + str(int(digits)) if digits else "")


def _threshold(name: str, family: str, inside: str) -> int:
    key, equals, level = inside.replace(" ", "").partition("=")
    if KINDS[family] != "binary":
        raise _refused(name, f"{family} has no relevance threshold (nDCG weighs the grades themselves, Judged counts "
                             f"any judgement); write {family}@10")
    if key != "rel" or not equals:
        raise _refused(name, f"the only parameter read is rel=N, not {inside!r}")
    if not re.fullmatch(r"[+-]?\d+", level):
        raise _refused(name, f"rel={level} is not an integer")
    if int(level) < 1:
        raise _refused(name, f"rel={int(level)} makes a grade of {int(level)} relevant, where trec_eval's grades "
                             "<= 0 are not relevant; rel is 1 or more")
    return int(level)


def _depth(name: str, family: str, written: str | None, max_cutoff: int | None) -> int | None:
    if written is None:
        if family not in WHOLE_RANKING:
            raise _refused(name, f"{family} has a cutoff, as ir_measures requires: {name}@k")
        if max_cutoff is not None:
            raise _refused(name, f"with no cutoff it would read the whole ranking; the rows keep {max_cutoff} ranks, "
                                 f"so write {name}@{max_cutoff}")
        return None
    if not re.fullmatch(r"[1-9]\d*", written):
        looks = re.fullmatch(r"[+-]?\d+", written)
        why = ("a cutoff of 0 or less" if looks and int(written) <= 0 else
               "a cutoff with a leading zero" if looks else f"the cutoff {written!r}, which is not an integer")
        raise _refused(name, f"{why}; the cutoff is a positive integer")
    if max_cutoff is not None and int(written) > max_cutoff:
        raise _refused(name, f"its cutoff {written} is deeper than the {max_cutoff} ranks the rows keep; write "
                             f"{family}@{max_cutoff} at most")
    return int(written)


def parse(name: str, *, max_cutoff: int | None = None) -> NamedMeasure:
    """The measure `name` names; NameRefused, naming the name, the fault and the forms read, for anything else."""
    if not isinstance(name, str):
        raise NameRefused(f"a measure is named by a string, not {type(name).__name__} {name!r} ({FORMS})")
    parts = re.fullmatch(r"([A-Za-z_]+)(\(([^()]*)\))?(@(.*))?", name)
    if parts is None or parts.group(1) not in KINDS:
        other = _other_tool(name)
        spelled = f"; ir_measures writes it {other!r}" if other and other != name else ""
        family = f"{parts.group(1)!r} is no family of measures" if parts else "it is not FAMILY@k"
        raise _refused(name, f"{family} (families: {', '.join(KINDS)}){spelled}")
    family = parts.group(1)
    rel = 1 if parts.group(2) is None else _threshold(name, family, parts.group(3))
    stem = NamedMeasure(family, None, rel).name
    return NamedMeasure(family, _depth(stem if parts.group(4) is None else name, family, parts.group(5), max_cutoff),
                        rel)


def compute(measure: NamedMeasure, ranking: list[str], qrels: dict[str, int], conventions: Conventions) -> float:
    """`measure` of `ranking` (unique ids, best first) against `qrels` under `conventions`; ValueError for a ranking
    that repeats a document or a grade above ir_metrics.MAX_GRADE."""
    if len(set(ranking)) != len(ranking):
        raise ValueError("the ranking repeats a document")
    if qrels and max(qrels.values()) > MAX_GRADE:
        raise ValueError(f"a relevance grade above {MAX_GRADE}: {max(qrels.values())}")
    top = ranking if measure.k is None else ranking[: measure.k]
    if not top:
        return 0.0
    if measure.family == "Judged":
        return sum(doc in qrels for doc in top) / len(top)
    if measure.family == "nDCG":
        best = sorted((conventions.gain(grade) for grade in qrels.values()), reverse=True)
        ideal = sum(gain / math.log2(i + 2) for i, gain in enumerate(best if measure.k is None else best[: measure.k]))
        gained = sum(conventions.gain(qrels[doc]) / math.log2(i + 2) for i, doc in enumerate(top) if doc in qrels)
        return gained / ideal if ideal > 0 else 0.0
    relevant = {doc for doc, grade in qrels.items() if grade >= measure.rel}
    if not relevant:
        return 0.0
    found = [i + 1 for i, doc in enumerate(top) if doc in relevant]
    if measure.family == "P":
        return len(found) / len(top) if measure.k is None else len(found) / measure.k
    if measure.family == "R":
        return len(found) / len(relevant)
    if measure.family == "Success":
        return 1.0 if found else 0.0
    if measure.family == "RR":
        return 1.0 / found[0] if found else 0.0
    precisions = [n / rank for n, rank in enumerate(found, start=1)]
    within = len(relevant) if measure.k is None or conventions.map_denominator == "relevant" else min(
        len(relevant), measure.k)
    return sum(precisions) / within
