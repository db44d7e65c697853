"""The frozen evaluation contract, loaded from data (harness/contracts/*.json).

The SciFact contract ships with the package and has no command-line override. Tests load a tiny
contract of their own with `Contract.from_file`.
"""

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from harness.errors import HarnessError


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
    pinned_payload_sha256: dict[str, str]
    pinned_content_sha256: dict[str, str]  # documents, queries, qrels: the canonical content's digests
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

    @classmethod
    def from_mapping(cls, data: dict[str, Any]) -> "Contract":
        try:
            archive = data.get("source_archive") or {}
            return cls(
                name=data["name"],
                source_url=data.get("source_url"),
                source_archive_bytes=archive.get("bytes"),
                source_archive_md5=archive.get("md5"),
                corpus_member=data["members"]["corpus"],
                queries_member=data["members"]["queries"],
                qrels_member=data["members"]["qrels"],
                pinned_payload_sha256=dict(data["pinned_payload_sha256"]),
                pinned_content_sha256=dict(data["pinned_content_sha256"]),
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
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise HarnessError(f"contract {data.get('name', '?')!r} is incomplete or malformed: {exc!r}") from exc

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


def scifact_contract() -> Contract:
    text = resources.files("harness").joinpath("contracts/scifact.json").read_text(encoding="utf-8")
    return Contract.from_mapping(json.loads(text))
