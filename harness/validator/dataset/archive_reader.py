"""The dataset re-derived from its archive by the validator's own reader (stdlib zipfile and json).

Only members whose bytes are the pinned ones are parsed (a member that differs is reported, not read), and
each is read with a cap of its pinned size plus one byte, so a hostile archive cannot make the reader
inflate more than the dataset itself. The BEIR layout: corpus.jsonl ({_id, title?, text} per line),
queries.jsonl ({_id, text} per line), qrels TSV with a `query-id, corpus-id, score` header; the test queries
are those the test judgements name, in queries.jsonl order.
"""

import hashlib
import json
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from ..core.digests import sha256_bytes
from .content import Content, Qrels
from .pins import Pins


class ArchiveUnreadable(Exception):
    """The archive is not a zip the validator can read."""


@dataclass(frozen=True)
class Derived:
    archive_bytes: int
    archive_md5: str
    member_sha256: dict[str, str | None]  # pinned member -> sha256 found (None: absent)
    content: Content | None  # None unless every member matched its pin


def _lines(data: bytes) -> list[str]:
    lines = data.decode("utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def _records(data: bytes) -> list[dict[str, object]]:
    return [json.loads(line) for line in _lines(data)]


def parse(corpus: bytes, queries: bytes, qrels_tsv: bytes) -> Content:
    documents = tuple((str(r["_id"]), str(r.get("title", "")), str(r["text"])) for r in _records(corpus))
    qrels: Qrels = {}
    for line in _lines(qrels_tsv)[1:]:  # the header row first
        query_id, doc_id, grade = line.split("\t")
        qrels.setdefault(query_id, {})[doc_id] = int(grade)
    test_queries = tuple((str(r["_id"]), str(r["text"])) for r in _records(queries) if r["_id"] in qrels)
    return Content(documents, test_queries, qrels)


def _container_digests(path: Path) -> tuple[int, str]:
    md5, size = hashlib.md5(usedforsecurity=False), 0
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            md5.update(chunk)
            size += len(chunk)
    return size, md5.hexdigest()


def _read_roles(path: Path, pins: Pins) -> tuple[dict[str, str | None], Content]:
    """The members by role, read whole: only ever called on the publisher's archive (its size and md5 are the
    pins'), so its members are the publisher's."""
    with zipfile.ZipFile(path) as archive:
        bodies = {role: archive.read(name) for role, name in pins.members.items()}
    found: dict[str, str | None] = {pins.members[role]: sha256_bytes(body) for role, body in bodies.items()}
    return found, parse(bodies["corpus"], bodies["queries"], bodies["qrels"])


def _read_publishers(path: Path, pins: Pins) -> Derived:
    size, md5 = _container_digests(path)
    original = pins.original_container or {}
    if (size, md5) != (original.get("bytes"), original.get("md5")):
        return Derived(size, md5, {}, None)
    try:
        found, content = _read_roles(path, pins)
    except (zipfile.BadZipFile, KeyError, OSError, RuntimeError, EOFError, ValueError, zlib.error) as exc:
        raise ArchiveUnreadable(f"{path} has the pinned size and md5 but its members cannot be read: {exc}") from exc
    return Derived(size, md5, found, content)


def read_archive(path: Path, pins: Pins) -> Derived:
    if pins.archive_only:
        try:
            return _read_publishers(path, pins)
        except OSError as exc:
            raise ArchiveUnreadable(f"{path} cannot be read: {exc}") from exc
    found: dict[str, str | None] = {}
    members: dict[str, bytes] = {}
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            for name, pinned in pins.member_files.items():
                if name not in names:
                    found[name] = None
                    continue
                with archive.open(name) as handle:
                    body = handle.read(int(pinned["bytes"]) + 1)  # one byte more tells a longer member apart
                found[name] = "sha256:" + hashlib.sha256(body).hexdigest()
                if found[name] == pinned["sha256"]:
                    members[name] = body
    except (zipfile.BadZipFile, OSError, RuntimeError, EOFError, ValueError, NotImplementedError, zlib.error) as exc:
        raise ArchiveUnreadable(f"{path} is not a readable zip archive: {exc}") from exc
    roles = pins.members
    content = None
    if all(found.get(name) == pinned["sha256"] for name, pinned in pins.member_files.items()):
        content = parse(members[roles["corpus"]], members[roles["queries"]], members[roles["qrels"]])
    return Derived(*_container_digests(path), found, content)

