"""Artifact names and writing: nothing existing is overwritten silently.

An earlier artifact pair is moved to `<output>/superseded/<UTC time>/` only when the caller asks
for replacement; otherwise its presence is an error. How a pair is written, exclusively and so that a
kill leaves nothing that looks complete, is `harness.evaluation.receipts.artifact_writer`.
"""

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.corpus.split import SPLITS
from harness.errors import RefusedError
from harness.modes import MODES


def rows_name(dataset: str, mode: str, split: str) -> str:
    """`dataset` is the name artifacts carry (`harness.corpus.contract.artifact_dataset`): scifact for SciFact."""
    return f"{dataset}-{mode}-{split}.jsonl"


def aggregate_name(dataset: str, mode: str, split: str) -> str:
    return f"{dataset}-{mode}-{split}.aggregate.json"


AGGREGATE_SUFFIXES = {f"-{mode}-{split}.aggregate.json": (mode, split) for mode in MODES for split in SPLITS}


def named_dataset(name: str) -> str | None:
    """The dataset an aggregate's file name carries (`trec-covid` of trec-covid-hybrid-all.aggregate.json), if any."""
    for suffix in AGGREGATE_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name.removesuffix(suffix)
    return None


class MixedDatasetsError(RefusedError):
    """One output directory holds one dataset's evaluation (one freeze.json); this one holds runs of several."""


def datasets_in(output_dir: Path) -> list[str]:
    """The datasets whose aggregates lie directly in `output_dir`, sorted."""
    if not output_dir.is_dir():
        return []
    return sorted({d for p in output_dir.glob("*.aggregate.json") if (d := named_dataset(p.name)) is not None})


def output_dataset(output_dir: Path) -> str | None:
    """The one dataset whose runs `output_dir` holds (None when it holds none); several are refused."""
    found = datasets_in(output_dir)
    if len(found) > 1:
        raise MixedDatasetsError(
            f"{output_dir} holds runs of {' and '.join(found)}; one output directory holds one dataset's evaluation "
            "(its freeze.json binds one fixture): move one dataset's artifacts to an --output-dir of their own")
    return found[0] if found else None


def refuse_another_dataset(output_dir: Path, dataset: str) -> None:
    """Before a run of `dataset` writes into `output_dir`: refused when it holds another dataset's runs."""
    found = [d for d in datasets_in(output_dir) if d != dataset]
    if found:
        raise MixedDatasetsError(
            f"{output_dir} holds runs of {', '.join(found)}, and this run is of {dataset}; one output directory holds "
            "one dataset's evaluation (its freeze.json binds one fixture): use another --output-dir")


class ArtifactExistsError(RefusedError):
    """An artifact from an earlier run is in the way."""


def clear_the_way(output_dir: Path, dataset: str, mode: str, split: str, replace: bool) -> Path | None:
    """Refuse, or move the earlier pair aside; return where it went."""
    existing = [p for p in (output_dir / rows_name(dataset, mode, split),
                            output_dir / aggregate_name(dataset, mode, split))
                if p.exists()]
    if not existing:
        return None
    if not replace:
        raise ArtifactExistsError(
            f"{', '.join(str(p) for p in existing)} already exist(s); an artifact is never overwritten. "
            "Use another --output-dir, or --replace to move the earlier artifacts to superseded/."
        )
    target = superseded_directory(output_dir, existing[0].name)
    for path in existing:
        path.rename(target / path.name)
    return target


def superseded_directory(output_dir: Path, first: str, label: str = "") -> Path:
    """A new `OUTPUT/superseded/<UTC time>[label][-n]/` that holds no file named `first` yet."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + label
    target = output_dir / "superseded" / stamp
    suffix = 0
    while (target / first).exists():
        suffix += 1
        target = output_dir / "superseded" / f"{stamp}-{suffix}"
    target.mkdir(parents=True, exist_ok=True)
    return target


def rows_bytes(rows: Sequence[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(row, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
                    + b"\n" for row in rows)


def aggregate_bytes(aggregate: dict[str, Any]) -> bytes:
    return json.dumps(aggregate, ensure_ascii=False, allow_nan=False, indent=1).encode() + b"\n"
