"""A collection of the user's own, in BEIR's layout, declared as a contract the user commits.

BEIR's layout: `corpus.jsonl`, `queries.jsonl` and `qrels/SPLIT.tsv`, at the top of the archive or under one
folder. A directory is first packed into a deterministic zip (sorted members, fixed timestamps), so the same files
always give the same archive and the same digest. The contract pins every member's sha256 and the canonical
content, as SciFact's does; its identity is the user's declaration (no public pin vouches for it), and it says so.
Its text profile, top_k and metric conventions are the default contract's (SciFact's).
"""

import re
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any

from harness.atomic import atomic_writer
from harness.corpus.archive import SafeArchive
from harness.corpus.beir import check_references, parse_corpus, parse_qrels, parse_queries
from harness.corpus.content_digests import content_digests
from harness.corpus.contract import ArchiveLimits, Contract, scifact_contract, shipped_datasets
from harness.corpus.download import digest_file
from harness.errors import HarnessError

LIMITS = {"max_members": 64, "max_total_uncompressed_bytes": 1 << 31, "max_compression_ratio": 100}
FIXED_TIME = (1980, 1, 1, 0, 0, 0)
DECLARED_BY = "the user's declaration (python -m harness contract): no public pin vouches for this archive"


class CollectionError(HarnessError):
    """The user's collection is not in BEIR's layout, or cannot be declared as it is."""


def pack_directory(directory: Path, name: str, out: Path) -> Path:
    """corpus.jsonl, queries.jsonl and every qrels/*.tsv of `directory`, under `name/`, as a deterministic zip."""
    judgements = sorted((directory / "qrels").glob("*.tsv"))
    missing = [file for file in ("corpus.jsonl", "queries.jsonl") if not (directory / file).is_file()]
    missing += [] if judgements else ["qrels/SPLIT.tsv"]
    if missing:
        raise CollectionError(f"{directory} is not a BEIR collection: it lacks {', '.join(missing)}; BEIR's layout "
                              "is corpus.jsonl, queries.jsonl and qrels/test.tsv")
    with atomic_writer(out) as handle, zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in [directory / "corpus.jsonl", directory / "queries.jsonl", *judgements]:
            info = zipfile.ZipInfo(f"{name}/{path.relative_to(directory).as_posix()}", FIXED_TIME)
            info.compress_type, info.external_attr = zipfile.ZIP_DEFLATED, 0o644 << 16
            archive.writestr(info, path.read_bytes())
    return out


def _roles(names: list[str], split: str) -> dict[str, str]:
    """The members by role, found by BEIR's layout under the archive's one top-level folder (or none)."""
    wanted = {"corpus": "corpus.jsonl", "queries": "queries.jsonl", "qrels": f"qrels/{split}.tsv"}
    found = {}
    for role, tail in wanted.items():
        matches = [n for n in names if n == tail or (n.endswith("/" + tail) and len(PurePosixPath(n).parts)
                                                     == len(PurePosixPath(tail).parts) + 1)]
        if len(matches) != 1:
            hint = "; --split names the judged split" if role == "qrels" else ""
            raise CollectionError(f"the archive holds {len(matches)} members named {tail} (in BEIR's layout, one, at "
                                  f"the top or under one folder){hint}")
        found[role] = matches[0]
    return found


def _check_name(name: str) -> None:
    if name in shipped_datasets() or name in shipped_datasets().values():
        raise CollectionError(f"{name!r} is the name of a shipped dataset; name your collection otherwise")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name):  # it begins every artifact's file name
        raise CollectionError(f"collection name {name!r}: use ASCII letters, digits, '-', '_' or '.', beginning with a "
                              "letter or digit")


def declare(archive: Path, name: str, *, split: str = "test", calibration_count: int | None = None) -> dict[str, Any]:
    """The contract of the collection in `archive`: member and content pins, counts, the split rule's N."""
    _check_name(name)
    with SafeArchive(archive, ArchiveLimits(**LIMITS)) as safe:
        roles = _roles(safe.file_names, split)
        members = {member: safe.read(member) for member in safe.file_names}
    documents = parse_corpus(members[roles["corpus"]].data, roles["corpus"])
    queries = parse_queries(members[roles["queries"]].data, roles["queries"])
    qrels = parse_qrels(members[roles["qrels"]].data, roles["qrels"])
    check_references(qrels, documents, queries, roles["qrels"])
    tested = [q for q in queries if q.query_id in qrels]
    count = max(1, len(tested) // 3) if calibration_count is None else calibration_count
    if not 0 < count < len(tested):
        raise CollectionError(f"--calibration-count {count}: it must leave at least one query on each side of the "
                              f"{len(tested)} judged queries")
    digests = content_digests(((d.doc_id, d.title, d.text) for d in documents), ((q.query_id, q.text) for q in tested),
                              qrels)
    source, terms = digest_file(archive), scifact_contract()  # the default contract's profile, top_k and measures
    contract = {
        "name": name, "description": f"{name}: a collection of the user's own, declared from {archive.name}",
        "ir_datasets_id": None, "source_url": None,
        "source_archive": {"bytes": source.bytes, "md5": source.md5, "sha256": source.sha256,
                           "file": archive.name, "pinned_by": DECLARED_BY},
        "members": roles,
        "pinned_payload_sha256": {member: found.sha256 for member, found in sorted(members.items())},
        "shape": {"documents": len(documents), "test_queries": len(tested),
                  "test_qrel_pairs": sum(len(judged) for judged in qrels.values())},
        "limits": LIMITS, "semantic_text_max_code_points": terms.semantic_text_max_code_points,
        "document_prefix": terms.document_prefix, "query_prefix": terms.query_prefix, "namespace": name,
        "top_k": terms.top_k, "calibration_count": count, "measures": terms.measures,
        "pinned_content_sha256": digests,
    }
    Contract.from_mapping(contract)  # what the harness will read back
    return contract
