"""`--dataset NAME`: the reader's own assertion of which dataset an artifact is a run of.

The name is the one a run's file names carry (scifact, nfcorpus, a collection's own name). It is held to the dataset
the validator established itself: from the fixture, matched to its own pins or re-derived from the publisher's
archive (an aggregate), or, for a comparison, from its own validation of each input aggregate. The artifact's file
name and its receipt's word are not asked.
"""

from ..core.report import Report
from .pins import artifact_name

CHECK = "dataset.named"


def established(report: Report) -> list[str]:
    """The contract names of the datasets the validator established for the artifact of `report`."""
    dataset = report.notes.get("dataset")
    if isinstance(dataset, dict) and dataset.get("name"):
        return [str(dataset["name"])]
    return [str(name) for name in report.notes.get("compared_datasets", [])]


def check_named(report: Report, wanted: str) -> None:
    found = established(report)
    if not found:
        report.fail(CHECK, f"--dataset {wanted}: the validator established no dataset for this artifact (its fixture "
                    "or its inputs could not be read; see the checks above)", wanted, None)
        return
    names = sorted({artifact_name(name) for name in found})
    report.expect(CHECK, names == [wanted], f"--dataset {wanted}: the validator established the dataset itself, "
                  f"{', '.join(found)} ({', '.join(names)})", wanted, names)
