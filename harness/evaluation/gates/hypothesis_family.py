"""The family of hypotheses a freeze record declares, whichever way it was recorded.

A freeze record declares its hypotheses in `hypotheses` (alpha, adjustment, members). Records frozen before families
existed hold one hypothesis in `hypothesis`, with its own alpha, tested two-sided; such a record is bound by the digest
its held-out receipts name and cannot be frozen again, so it is read as a family of one: that alpha the family's, the
member two-sided, as it was declared.
"""

from typing import Any

from harness.evaluation.gates.hypothesis_terms import ADJUSTMENT

FAMILY_FIELD, SINGLE_FIELD = "hypotheses", "hypothesis"


def declared_family(record: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """(the record's field, its family as `hypotheses` states one), or None when the record declares none."""
    family = record.get(FAMILY_FIELD)
    if family is not None:
        return FAMILY_FIELD, family
    single = record.get(SINGLE_FIELD)
    if single is None:
        return None
    member = {key: value for key, value in single.items() if key != "alpha"}
    member["sided"] = "two"
    return SINGLE_FIELD, {"alpha": single["alpha"], "adjustment": ADJUSTMENT, "members": [member]}
