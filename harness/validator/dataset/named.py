"""`--dataset NAME`: the reader's own assertion of which dataset an artifact is a run of.

The name is the one a run's file names carry (scifact, nfcorpus, a collection's own name). It is held to the dataset
the validator established itself, by content: a dataset it pins only when the fixture's documents, queries and
judgements are that dataset's pinned content (or its archive re-derived), and otherwise the collection of the
publisher's own its archive re-derives, whatever its contract, its files or its archive are called. A collection of
the publisher's own is never a dataset the validator pins, so `--dataset scifact` on one FAILs. The artifact's file
name and its receipt's word are not asked.
"""

from typing import Any

from ..core.report import Report
from .pins import artifact_name, pinned_names

CHECK = "dataset.named"
OWN = " (a collection of the publisher's own)"


def established_name(dataset: dict[str, Any]) -> str:
    """What the validator calls the dataset it established: a pinned dataset by the name its run's files carry, a
    collection of the publisher's own by its name with the words that say so (never a pinned dataset's name)."""
    name = str(dataset["name"])
    return name + OWN if dataset.get("own") else artifact_name(name)


def established(report: Report) -> list[str]:
    """The datasets the validator established for the artifact of `report`, each as `established_name` words it."""
    dataset = report.notes.get("dataset")
    if isinstance(dataset, dict) and dataset.get("name") and dataset.get("established"):
        return [established_name(dataset)]
    return [str(name) for name in report.notes.get("compared_datasets", [])]


def check_named(report: Report, wanted: str) -> None:
    found = sorted(set(established(report)))
    if not found:
        report.fail(CHECK, f"--dataset {wanted}: the validator established no dataset for this artifact (its fixture "
                    "or its inputs could not be read; see the checks above)", wanted, None)
        return
    own = [name for name in found if name.endswith(OWN)]
    if own and wanted in pinned_names():
        report.fail(CHECK, f"--dataset {wanted}: the artifact is a run of {', '.join(own)}, re-derived from the "
                    f"publisher's archive; its content is not {pinned_names()[wanted]}'s pinned content, whatever it "
                    "is called", wanted, found)
        return
    names = [name.removesuffix(OWN) for name in found]
    report.expect(CHECK, names == [wanted], f"--dataset {wanted}: the validator established the dataset itself, by "
                  f"its content: {', '.join(found)}", wanted, found)
