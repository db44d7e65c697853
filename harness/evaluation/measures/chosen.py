"""Measures chosen by name for a run (`--measure`), beside the receipts' default metrics: each row's values and their
means. A measure whose cutoff is within the contract's top_k reads the row's ranking (the claim); a deeper one, up to
100, reads the row's depth-100 ranking; a failed query, or a failed depth search for a deeper measure, scores 0 and
counts in the mean. The names are ir_measures' (named.py); the defaults stay as they are."""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness.errors import HarnessError
from harness.evaluation.measures.metrics import DEPTH, Conventions
from harness.evaluation.measures.named import Measure, parse_measure, value

RULE = (f"a measure of cutoff k <= top_k is read from the row's ranking, a deeper one (k <= {DEPTH}) from its "
        "depth-100 ranking; a failed query or depth search scores 0; the mean is over every row")


class ChosenMeasureError(HarnessError):
    """A measure chosen for a run that cannot be computed from its rows."""


@dataclass(frozen=True)
class ChosenMeasures:
    measures: tuple[Measure, ...]
    top_k: int

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(str(measure) for measure in self.measures)

    def add_to(self, rows: Sequence[dict[str, Any]], conventions: Conventions) -> None:
        """Each row's `measures`: the chosen measures' values, by name."""
        for row in rows:
            row["measures"] = {str(m): self._value(m, row, conventions) for m in self.measures}

    def _value(self, measure: Measure, row: dict[str, Any], conventions: Conventions) -> float:
        if row["error"] is not None:
            return 0.0
        assert measure.cutoff is not None  # parsed with a depth: every chosen measure has a cutoff
        if measure.cutoff <= self.top_k:
            return value(measure, row["ranked_doc_ids"], row["qrels"], conventions)
        entry = row.get("depth_ranking")
        if entry is None or entry["error"] is not None:
            return 0.0
        return value(measure, entry["doc_ids"], row["qrels"], conventions)

    def block(self, rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """The aggregate's `measures`: the names in the order chosen, each one's mean over every row, the rule."""
        return {"names": list(self.names),
                "means": {name: math.fsum(row["measures"][name] for row in rows) / len(rows) for name in self.names},
                "rule": RULE}


def choose(names: Sequence[str], *, top_k: int, deep: bool) -> ChosenMeasures | None:
    """The measures `names` name, for rows whose ranking holds top_k documents and, when `deep` (the system answers a
    depth-100 ranking), a depth-100 ranking beside it; None when none is chosen. A name twice, or a cutoff the rows
    cannot reach, is refused by name."""
    if not names:
        return None
    depth = DEPTH if deep else top_k
    measures = tuple(parse_measure(name, max_cutoff=depth) for name in names)
    written = [str(m) for m in measures]
    repeated = sorted({name for name in written if written.count(name) > 1})
    if repeated:
        raise ChosenMeasureError(f"--measure {repeated[0]} is chosen twice; name each measure once")
    return ChosenMeasures(measures, top_k)
