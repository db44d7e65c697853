"""The frozen evaluation contract of a dataset, loaded from data (harness/contracts/NAME.json).

Each public BEIR dataset the harness knows ships as one contract file, named by the stem users type
(`--dataset nfcorpus`); SciFact's is the default. A contract pins its archive by size and md5 (ir_datasets'
pins) and may pin more: SciFact's also pins every member's sha256 and the canonical content, so a re-packed
archive with the same members is still SciFact. Tests load a tiny contract of their own with
`Contract.from_file`.
"""

import functools
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.typed_commands import harness_command


@dataclass(frozen=True)
class ArchiveLimits:
    max_members: int
    max_total_uncompressed_bytes: int
    max_compression_ratio: float

    @property
    def max_archive_bytes(self) -> int:
        """The largest zip the other caps admit: every member stored uncompressed, its headers, a full comment."""
        return self.max_total_uncompressed_bytes + 1024 * self.max_members + 65_557


MEASURE_CONVENTIONS = {
    # nDCG's gain of a judged grade g > 0: "grade" is g (trec_eval, pytrec_eval, BEIR, MTEB); "exponential" 2^g - 1
    "ndcg_gain": ("grade", "exponential"),
    # MAP@k's divisor: "relevant" is every relevant document (trec_eval's map_cut); "relevant_within_k" min(R, k)
    "map_denominator": ("relevant", "relevant_within_k"),
}


def measure_conventions(stated: Any, name: str) -> dict[str, str]:
    """The contract's `measures`, each a convention the metrics know; refused by name otherwise."""
    if not isinstance(stated, dict) or set(stated) != set(MEASURE_CONVENTIONS):
        raise HarnessError(f"contract {name!r}: `measures` must state exactly {sorted(MEASURE_CONVENTIONS)}, "
                           f"not {stated!r}")
    for key, allowed in MEASURE_CONVENTIONS.items():
        if stated[key] not in allowed:
            raise HarnessError(f"contract {name!r}: measures.{key} is {stated[key]!r}; it must be one of {allowed}")
    return dict(stated)


@dataclass(frozen=True)
class Contract:
    name: str
    source_url: str | None
    source_archive_bytes: int | None
    source_archive_md5: str | None
    corpus_member: str
    queries_member: str
    qrels_member: str
    pinned_payload_sha256: dict[str, str]  # member -> sha256; empty when the archive's md5 is the only pin
    pinned_content_sha256: dict[str, str]  # documents, queries, qrels: the canonical content's digests (or empty)
    documents: int
    test_queries: int
    test_qrel_pairs: int
    limits: ArchiveLimits
    semantic_text_max_code_points: int
    document_prefix: str
    query_prefix: str
    namespace: str
    top_k: int
    calibration_count: int
    measures: dict[str, str]  # the metric conventions (MEASURE_CONVENTIONS), which the receipts state
    ir_datasets_id: str | None = None  # the dataset's id in ir_datasets, when it has one (receipts and exports name it)
    title: str = ""  # what reports call it (SciFact); a collection of one's own goes by its name

    @classmethod
    def from_mapping(cls, data: dict[str, Any]) -> "Contract":
        try:
            archive = data.get("source_archive") or {}
            contract = cls(
                name=data["name"],
                source_url=data.get("source_url"),
                source_archive_bytes=archive.get("bytes"),
                source_archive_md5=archive.get("md5"),
                corpus_member=data["members"]["corpus"],
                queries_member=data["members"]["queries"],
                qrels_member=data["members"]["qrels"],
                pinned_payload_sha256=dict(data.get("pinned_payload_sha256") or {}),
                pinned_content_sha256=dict(data.get("pinned_content_sha256") or {}),
                documents=int(data["shape"]["documents"]),
                test_queries=int(data["shape"]["test_queries"]),
                test_qrel_pairs=int(data["shape"]["test_qrel_pairs"]),
                limits=ArchiveLimits(**data["limits"]),
                semantic_text_max_code_points=int(data["semantic_text_max_code_points"]),
                document_prefix=data["document_prefix"],
                query_prefix=data["query_prefix"],
                namespace=data["namespace"],
                top_k=int(data["top_k"]),
                calibration_count=int(data["calibration_count"]),
                measures=measure_conventions(data["measures"], data["name"]),
                ir_datasets_id=data.get("ir_datasets_id"),
                title=str(data.get("title") or data["name"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise HarnessError(f"contract {data.get('name', '?')!r} is incomplete or malformed: {exc!r}") from exc
        if contract.pinned_by_archive_only and None in (contract.source_archive_bytes, contract.source_archive_md5):
            raise HarnessError(f"contract {contract.name!r} pins neither its members nor its archive's size and md5; "
                               "a contract must pin one of them")
        _hold_shipped_name(contract, data)
        return contract

    @classmethod
    def from_file(cls, path: Path) -> "Contract":
        return cls.from_mapping(json.loads(path.read_text(encoding="utf-8")))

    def summary(self) -> dict[str, Any]:
        """What the fixture records about the contract it was built under."""
        return {
            "name": self.name,
            "documents": self.documents,
            "test_queries": self.test_queries,
            "test_qrel_pairs": self.test_qrel_pairs,
            "semantic_text_max_code_points": self.semantic_text_max_code_points,
            "document_prefix": self.document_prefix,
            "query_prefix": self.query_prefix,
            "namespace": self.namespace,
            "top_k": self.top_k,
            "calibration_count": self.calibration_count,
        }


    @property
    def pinned_by_archive_only(self) -> bool:
        """No member or content pin: the archive's size and md5 are what make it this dataset."""
        return not self.pinned_payload_sha256 and not self.pinned_content_sha256


def _hold_shipped_name(contract: Contract, data: dict[str, Any]) -> None:
    """A contract that goes by a shipped dataset's name (its `--dataset` name, its contract name or namespace) is that
    dataset's contract, term for term, whose pins then hold the content the fixture is built from; anything else
    would write that dataset's file names over another collection."""
    for name in (contract.name, contract.namespace):
        if name in _shipped_mappings() and data != _shipped_mappings()[name][1]:
            dataset, shipped = _shipped_mappings()[name]
            title = shipped.get("title") or shipped["name"]
            raise HarnessError(
                f"contract {contract.name!r} goes by the name {name!r} of the shipped dataset {title}, but it is not "
                f"that dataset's contract: a collection of your own needs a name of its own "
                f"({harness_command('contract', '--name', 'NAME')}); for {title} itself, use --dataset {dataset}")


@functools.cache
def _shipped_mappings() -> dict[str, tuple[str, dict[str, Any]]]:
    """Each shipped contract's `--dataset` name and JSON, by every name it goes by."""
    folder = resources.files("harness").joinpath("contracts")
    found: dict[str, tuple[str, dict[str, Any]]] = {}
    for entry in folder.iterdir():
        if entry.name.endswith(".json"):
            data, dataset = json.loads(entry.read_text(encoding="utf-8")), entry.name.removesuffix(".json")
            found.update(dict.fromkeys((dataset, data["name"], data["namespace"]), (dataset, data)))
    return found


DEFAULT_DATASET = "scifact"


@functools.cache
def dataset_names() -> tuple[str, ...]:
    """The datasets whose contracts ship with the harness, by the name `--dataset` takes."""
    folder = resources.files("harness").joinpath("contracts")
    return tuple(sorted(entry.name.removesuffix(".json") for entry in folder.iterdir()
                        if entry.name.endswith(".json")))


def contract_named(dataset: str) -> Contract:
    if dataset not in dataset_names():
        raise HarnessError(f"no dataset named {dataset!r}; the harness ships contracts for "
                           f"{', '.join(dataset_names())} (--dataset NAME)")
    text = resources.files("harness").joinpath(f"contracts/{dataset}.json").read_text(encoding="utf-8")
    return Contract.from_mapping(json.loads(text))


def scifact_contract() -> Contract:
    return contract_named(DEFAULT_DATASET)


@functools.cache
def shipped_datasets() -> dict[str, str]:
    """Each shipped contract's name (as a fixture records it, beir-scifact) -> its `--dataset` name (scifact)."""
    return {contract_named(dataset).name: dataset for dataset in dataset_names()}


def artifact_dataset(name: str) -> str:
    """The dataset a run's artifact names carry for the contract named `name`: a shipped dataset's `--dataset` name
    (scifact-hybrid-heldout.jsonl), a collection of one's own its contract's name."""
    return shipped_datasets().get(name, name)


def contract_of(name: str) -> tuple[str, Contract]:
    """The shipped dataset whose contract is named `name` (as a fixture records it), with its `--dataset` name."""
    dataset = shipped_datasets().get(name)
    if dataset is not None:
        return dataset, contract_named(dataset)
    raise HarnessError(f"the fixture was built under a contract named {name!r}, which the harness does not ship "
                       f"({', '.join(dataset_names())}); build the fixture with `"
                       f"{harness_command('build', '--dataset', 'NAME')}`")
