"""`harness.calibration`: a dataset's calibration split, loaded in one call for tuning: its queries, their
judgements and the corpus, read from the archive verified as `build` verifies it (the contract's member pins, or its
archive's size and md5, and its shape) and split by the contract's rule (harness/corpus/split.py).

The held-out split is not loaded: its judgements are read only by `run --split heldout` after `freeze`, and every
call for them is refused (RefusedError) before anything is read.
"""

import os
from dataclasses import dataclass
from pathlib import Path

from harness.corpus.contract import DEFAULT_DATASET, Contract, contract_named, dataset_names
from harness.corpus.dataset import load_dataset
from harness.corpus.obtain import archive_pin_holds, obtain_archive
from harness.corpus.split import SPLITS, select
from harness.errors import HarnessError, RefusedError
from harness.evaluation.measures.metrics import Conventions

ARCHIVE_VARIABLE = "SCIFACT_ARCHIVE"  # a local SciFact archive, as `build` reads it; never another dataset's


@dataclass(frozen=True)
class Calibration:
    """The calibration split of a dataset: its queries and judgements in split order, the whole corpus in BEIR's
    loader shape ({doc_id: {"title", "text"}}), and the metric conventions its contract declares (pass them to
    `harness.evaluate`)."""

    dataset: str  # the contract's name (beir-scifact, or a collection's own)
    query_ids: list[str]  # the calibration queries, in split order
    queries: dict[str, str]  # query id -> text
    qrels: dict[str, dict[str, int]]  # query id -> {doc_id: grade}
    corpus: dict[str, dict[str, str]]  # doc id -> {"title": ..., "text": ...}
    conventions: Conventions
    archive: Path  # the archive read
    archive_sha256: str


def _refuse_split(split: str, dataset: str) -> None:
    if split == "calibration":
        return
    if split in SPLITS:  # heldout, or all (which holds the held-out queries)
        raise RefusedError(
            f"split {split!r} of {dataset}: the held-out judgements are not loaded for tuning. They are read only "
            "by `run --split heldout` after `freeze` (the held-out gate), so that what is tuned never saw them; tune "
            "on split='calibration', freeze the configuration, then run the held-out split once")
    raise HarnessError(f"split {split!r} of {dataset}: the loader reads split='calibration' (the held-out split is "
                       "read only by `run --split heldout` after `freeze`)")


def _contract(dataset: str | Path) -> tuple[Contract, Path | None]:
    """The contract a shipped dataset's name or a contract file names, and the file (None for a shipped one)."""
    if isinstance(dataset, str) and dataset in dataset_names():
        return contract_named(dataset), None
    path = Path(dataset)
    if not path.is_file():
        raise HarnessError(f"dataset {str(dataset)!r} is neither a shipped dataset ({', '.join(dataset_names())}) nor "
                           "a contract file; pass a dataset's name, or the contract of a collection of your own "
                           "(written by `python -m harness contract`)")
    return Contract.from_file(path), path


def _archive(contract: Contract, own: Path | None, archive: str | Path | None, work_dir: Path | None) -> Path | None:
    """The archive given, else $SCIFACT_ARCHIVE for SciFact, else the NAME.zip `contract` packed beside a contract
    file; None when there is none (a download under `work_dir` then)."""
    if archive is not None:
        return Path(archive)
    if own is None and contract.name == contract_named(DEFAULT_DATASET).name and os.environ.get(ARCHIVE_VARIABLE):
        return Path(os.path.abspath(os.environ[ARCHIVE_VARIABLE]))
    beside = own.parent / f"{contract.namespace}.zip" if own is not None else None
    if beside is not None and beside.is_file():
        return beside
    if work_dir is None:
        where = f" (or set ${ARCHIVE_VARIABLE})" if own is None and contract.name == contract_named(
            DEFAULT_DATASET).name else ""
        source = f"; its publisher's is {contract.source_url}" if contract.source_url else ""
        raise HarnessError(f"no archive of {contract.name}: pass archive=PATH, the dataset's BEIR zip{where}, or "
                           f"work_dir=DIR to download it there as `build --work-dir DIR` does{source}")
    return None


def calibration(dataset: str | Path = DEFAULT_DATASET, archive: str | Path | None = None, *,
                split: str = "calibration", work_dir: str | Path | None = None) -> Calibration:
    """The calibration split of `dataset` (a shipped dataset's `--dataset` name, or the contract file of a collection
    of one's own). `archive`: its BEIR zip; None: $SCIFACT_ARCHIVE for SciFact, the NAME.zip packed beside a contract
    file, else the archive `build --work-dir WORK_DIR` downloads (or already downloaded) under `work_dir`.
    `split` other than "calibration" is refused (RefusedError): the held-out judgements are read only by
    `run --split heldout` after `freeze`."""
    _refuse_split(split, str(dataset))
    contract, own = _contract(dataset)
    work = Path(work_dir) if work_dir is not None else None
    path = _archive(contract, own, archive, work)
    found = obtain_archive(contract, work if work is not None else Path.cwd(), path, None)
    data = load_dataset(found.path, contract, archive_matches_pin=archive_pin_holds(contract, found, False))
    ids = select([query.query_id for query in data.queries], "calibration", contract.calibration_count)
    texts = {query.query_id: query.text for query in data.queries}
    return Calibration(
        dataset=contract.name, query_ids=ids, queries={qid: texts[qid] for qid in ids},
        qrels={qid: dict(data.qrels[qid]) for qid in ids},
        corpus={doc.doc_id: {"title": doc.title, "text": doc.text} for doc in data.documents},
        conventions=Conventions.declared(contract.measures), archive=found.path, archive_sha256=found.sha256)
