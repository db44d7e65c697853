"""`corpus.name`: a fixture goes by no name of a dataset the validator pins unless it is that dataset.

The contract's name and namespace are what a run's files and receipts call the dataset. A collection the validator
holds no pins for is the publisher's own whatever it is called, so it may not go by a pinned dataset's name (its key,
the name its files carry, its namespace, its archive's stem); a pinned dataset's fixture goes by that dataset's names
only.
"""

from typing import Any

from ..core.report import Report
from .pins import Pins, pinned_names

CHECK = "corpus.name"


def _own_names(pins: Pins) -> set[str]:
    return {str(name) for name in (pins.dataset, pins.artifact_name, pins.contract.get("namespace"),
                                   (pins.archive_name or "").removesuffix(".zip")) if name}


def check_collection_name(fixture: dict[str, Any], pins: Pins | None, report: Report) -> None:
    contract, taken = fixture["contract"], pinned_names()
    names = [str(contract.get(key)) for key in ("name", "namespace") if contract.get(key)]
    allowed = _own_names(pins) if pins is not None else set()
    clashing = [f"{name!r} ({taken[name]})" for name in dict.fromkeys(names) if name in taken and name not in allowed]
    if pins is None:
        detail = (f"the collection {contract.get('name')!r}, which the validator holds no pins for, goes by no name "
                  "of a dataset it pins (its content is not that dataset's: declare it under a name of its own, "
                  "`scifact-harness contract --name NAME`)")
    else:
        detail = f"the fixture of {pins.title} goes by {pins.title}'s own names only"
    report.expect(CHECK, not clashing, detail, "a name of its own", clashing)
