"""From a safe archive to a verified dataset: pinned payload digests, strict parsing, contract shape."""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.corpus.archive import Member, SafeArchive
from harness.corpus.beir import Document, Query, check_references, parse_corpus, parse_qrels, parse_queries
from harness.corpus.contract import Contract
from harness.errors import PayloadDigestMismatch, ShapeMismatchError


@dataclass(frozen=True)
class Dataset:
    documents: list[Document]
    queries: list[Query]  # the test queries only, in queries.jsonl order
    qrels: dict[str, dict[str, int]]
    members: dict[str, dict[str, Any]]  # name -> bytes, sha256, pinned sha256, match
    pinned: bool
    unused_members: list[str] = field(default_factory=list)

    @property
    def qrel_pairs(self) -> int:
        return sum(len(judged) for judged in self.qrels.values())


def _member_record(member: Member | None, pinned: str | None) -> dict[str, Any]:
    return {
        "bytes": member.bytes if member else None,
        "sha256": member.sha256 if member else None,
        "pinned_sha256": pinned,
        "matches_pin": pinned is not None and member is not None and member.sha256 == pinned,
    }


def _read_pinned(
    archive: SafeArchive, contract: Contract, allow_unpinned: bool
) -> tuple[dict[str, Member], dict[str, dict[str, Any]]]:
    needed = {contract.corpus_member, contract.queries_member, contract.qrels_member}
    present = set(archive.file_names)
    read: dict[str, Member] = {}
    records: dict[str, dict[str, Any]] = {}
    for name in sorted(needed | set(contract.pinned_payload_sha256) | present):
        pin = contract.pinned_payload_sha256.get(name)
        member = archive.read(name) if (name in present or name in needed) else None
        if pin is not None and (member is None or member.sha256 != pin) and not allow_unpinned:
            raise PayloadDigestMismatch(name, pin, member.sha256 if member else "(member missing)", contract.name)
        if member is not None:
            read[name] = member
        records[name] = _member_record(member, pin)
    return read, records


def check_shape(contract: Contract, documents: int, queries: int, qrel_pairs: int) -> None:
    for what, expected, found in (
        ("documents in corpus.jsonl", contract.documents, documents),
        ("test queries (queries named by the test qrels)", contract.test_queries, queries),
        ("test qrel pairs", contract.test_qrel_pairs, qrel_pairs),
    ):
        if expected != found:
            raise ShapeMismatchError(what, expected, found, contract.name)


def load_dataset(archive_path: Path, contract: Contract, *, allow_unpinned: bool = False,
                 archive_matches_pin: bool = False) -> Dataset:
    """`archive_matches_pin`: the archive's size and md5 are the contract's, which pins a contract with no member
    pins (`Contract.pinned_by_archive_only`)."""
    with SafeArchive(archive_path, contract.limits) as archive:
        read, records = _read_pinned(archive, contract, allow_unpinned)
    documents = parse_corpus(read[contract.corpus_member].data, contract.corpus_member)
    all_queries = parse_queries(read[contract.queries_member].data, contract.queries_member)
    qrels = parse_qrels(read[contract.qrels_member].data, contract.qrels_member)
    check_references(qrels, documents, all_queries, contract.qrels_member)
    test_queries = [query for query in all_queries if query.query_id in qrels]
    dataset = Dataset(
        documents=documents,
        queries=test_queries,
        qrels=qrels,
        members=records,
        pinned=archive_matches_pin if contract.pinned_by_archive_only else bool(contract.pinned_payload_sha256)
        and all(record["matches_pin"] for record in records.values() if record["pinned_sha256"]),
        unused_members=sorted(
            set(records) - {contract.corpus_member, contract.queries_member, contract.qrels_member}
            - set(contract.pinned_payload_sha256)
        ),
    )
    check_shape(contract, len(documents), len(test_queries), dataset.qrel_pairs)
    return dataset
