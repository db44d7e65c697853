"""BEIR parsing, pinned payload digests and the contract's shape check, on the tiny corpus."""

import dataclasses
import hashlib
from pathlib import Path

import pytest

from fixtures.archives import TINY_DIR, TINY_FILES, tiny_archive, tiny_contract, tiny_members
from harness.corpus.beir import parse_corpus, parse_qrels, parse_queries
from harness.corpus.dataset import load_dataset
from harness.errors import DatasetFormatError, PayloadDigestMismatch, ShapeMismatchError

CORPUS = "tiny/corpus.jsonl"
QUERIES = "tiny/queries.jsonl"
QRELS = "tiny/qrels/test.tsv"


def _unpinned(*names: str) -> object:
    contract = tiny_contract()
    pins = {k: v for k, v in contract.pinned_payload_sha256.items() if k not in names}
    return dataclasses.replace(contract, pinned_payload_sha256=pins)


def test_tiny_contract_pins_match_the_committed_files() -> None:
    pins = tiny_contract().pinned_payload_sha256
    for member, name in TINY_FILES.items():
        digest = "sha256:" + hashlib.sha256((TINY_DIR / name).read_bytes()).hexdigest()
        assert pins[f"tiny/{member}"] == digest, f"update fixtures/tiny/contract.json for {name}"


def test_tiny_archive_loads_with_its_shape(tmp_path: Path) -> None:
    dataset = load_dataset(tiny_archive(tmp_path / "t.zip"), tiny_contract())
    assert [d.doc_id for d in dataset.documents] == [f"d{i:02d}" for i in range(1, 11)]
    assert [q.query_id for q in dataset.queries] == ["q1", "q2", "q3", "q4", "q5", "q6"]  # q99 is not judged
    assert dataset.qrels["q1"] == {"d01": 1, "d08": 1}
    assert dataset.qrel_pairs == 8
    assert dataset.pinned
    assert all(record["matches_pin"] for record in dataset.members.values())


def test_changed_payload_fails_with_expected_and_found_digest(tmp_path: Path) -> None:
    corpus = tiny_members()[CORPUS].replace(b"Aspirin", b"Asprin", 1)
    archive = tiny_archive(tmp_path / "t.zip", {CORPUS: corpus})
    with pytest.raises(PayloadDigestMismatch) as caught:
        load_dataset(archive, tiny_contract())
    assert caught.value.member == CORPUS
    assert caught.value.expected == tiny_contract().pinned_payload_sha256[CORPUS]
    assert caught.value.found == "sha256:" + hashlib.sha256(corpus).hexdigest()
    assert "--allow-unpinned" in str(caught.value)


def test_allow_unpinned_proceeds_and_records_the_mismatch(tmp_path: Path) -> None:
    corpus = tiny_members()[CORPUS].replace(b"Aspirin", b"Asprin", 1)
    dataset = load_dataset(tiny_archive(tmp_path / "t.zip", {CORPUS: corpus}), tiny_contract(), allow_unpinned=True)
    assert not dataset.pinned
    assert dataset.members[CORPUS]["matches_pin"] is False
    assert dataset.members[QUERIES]["matches_pin"] is True


def test_missing_pinned_member_fails(tmp_path: Path) -> None:
    contract = dataclasses.replace(
        tiny_contract(),
        pinned_payload_sha256={**tiny_contract().pinned_payload_sha256, "tiny/qrels/train.tsv": "sha256:" + "0" * 64},
    )
    with pytest.raises(PayloadDigestMismatch, match="member missing"):
        load_dataset(tiny_archive(tmp_path / "t.zip"), contract)


def test_unexpected_members_are_recorded_not_ignored(tmp_path: Path) -> None:
    archive = tiny_archive(tmp_path / "t.zip", {"tiny/README.txt": b"hello"})
    dataset = load_dataset(archive, tiny_contract())
    assert dataset.unused_members == ["tiny/README.txt"]
    assert dataset.members["tiny/README.txt"]["sha256"] == "sha256:" + hashlib.sha256(b"hello").hexdigest()


@pytest.mark.parametrize(
    ("member", "edit", "what"),
    [
        (CORPUS, lambda b: b + b'{"_id": "d11", "title": "", "text": "extra"}\n', "documents in corpus.jsonl"),
        (QRELS, lambda b: b.replace(b"q6\td07\t1\r\n", b""), "test queries"),
        (QRELS, lambda b: b + b"q6\td02\t1\r\n", "test qrel pairs"),
    ],
)
def test_shape_mismatch_names_expected_and_found(tmp_path: Path, member: str, edit: object, what: str) -> None:
    data = edit(tiny_members()[member])  # type: ignore[operator]
    archive = tiny_archive(tmp_path / "t.zip", {member: data})
    with pytest.raises(ShapeMismatchError) as caught:
        load_dataset(archive, _unpinned(member))  # type: ignore[arg-type]
    assert what in caught.value.what
    assert caught.value.expected != caught.value.found


def test_duplicate_document_id_names_file_and_line() -> None:
    data = b'{"_id": "a", "title": "", "text": "x"}\n{"_id": "b", "text": "y"}\n{"_id": "a", "text": "z"}\n'
    with pytest.raises(DatasetFormatError, match=r"corpus.jsonl, line 3: repeats the id 'a'"):
        parse_corpus(data, "corpus.jsonl")


def test_duplicate_query_id() -> None:
    with pytest.raises(DatasetFormatError, match="line 2: repeats the id 'q'"):
        parse_queries(b'{"_id": "q", "text": "a"}\n{"_id": "q", "text": "b"}\n', "queries.jsonl")


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b'{"_id": "a", "text": "x"}\n{"_id": "b", "text": \n', "line 2: is not valid JSON"),
        (b'{"_id": "a", "text": "x"}\n\n{"_id": "b", "text": "y"}\n', "line 2: is blank"),
        (b'["a"]\n', "line 1: holds a JSON list"),
        (b'{"_id": "a"}\n', "line 1: has no 'text' field"),
        (b'{"_id": 7, "text": "x"}\n', "line 1: field '_id' is a int"),
        (b'{"_id": " a", "text": "x"}\n', "space-padded _id"),
        (b'{"_id": "a", "text": NaN}\n', "line 1: is not valid JSON"),
        (b'\xef\xbb\xbf{"_id": "a", "text": "x"}\n', "byte-order mark"),
        (b'{"_id": "a", "text": "x"}\n{"_id": "b", "text": "\xff"}\n', "line 2: is not valid UTF-8"),
    ],
)
def test_malformed_jsonl_names_the_line(data: bytes, problem: str) -> None:
    with pytest.raises(DatasetFormatError) as caught:
        parse_corpus(data, "corpus.jsonl")
    assert problem in str(caught.value)
    assert str(caught.value).startswith("corpus.jsonl")


def test_qrels_accepts_crlf_and_lf() -> None:
    crlf = b"query-id\tcorpus-id\tscore\r\nq1\td1\t1\r\nq1\td2\t0\r\n"
    expected = {"q1": {"d1": 1, "d2": 0}}
    assert parse_qrels(crlf, "t.tsv") == parse_qrels(crlf.replace(b"\r\n", b"\n"), "t.tsv") == expected


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"q1\td1\t1\n", "header must be"),
        (b"", "header must be"),
        (b"query-id\tcorpus-id\tscore\nq1\td1\t1.0\n", "line 2: grade '1.0' is not an integer"),
        (b"query-id\tcorpus-id\tscore\nq1\td1\tyes\n", "grade 'yes' is not an integer"),
        (b"query-id\tcorpus-id\tscore\nq1\td1\n", "line 2: needs 3 tab-separated fields"),
        (b"query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td1\t1\n", "line 3: judges the pair (q1, d1) twice"),
    ],
)
def test_malformed_qrels(data: bytes, problem: str) -> None:
    with pytest.raises(DatasetFormatError) as caught:
        parse_qrels(data, "t.tsv")
    assert problem in str(caught.value)


@pytest.mark.parametrize(
    ("row", "problem"),
    [(b"q1\tnot-a-doc\t1\r\n", "judges document 'not-a-doc'"), (b"nope\td01\t1\r\n", "names query 'nope'")],
)
def test_dangling_qrels_are_refused(tmp_path: Path, row: bytes, problem: str) -> None:
    archive = tiny_archive(tmp_path / "t.zip", {QRELS: tiny_members()[QRELS] + row})
    with pytest.raises(DatasetFormatError) as caught:
        load_dataset(archive, _unpinned(QRELS))  # type: ignore[arg-type]
    assert problem in str(caught.value)


def test_metadata_is_tolerated_and_a_missing_title_reads_as_empty() -> None:
    docs = parse_corpus(b'{"_id": "a", "text": "x", "metadata": {"k": 1}}\n', "c.jsonl")
    assert (docs[0].title, docs[0].text) == ("", "x")
