"""The validator's pins derived from an archive that is not the pinned one, the SciFact pins' ir_datasets id held to
the receipt's, the receipt's profile held to the fixture's, an explicit archive held to the pinned members, and the
contract's rules as the validator computes them (text cut at the ceiling, judgement pairs counted one by one). Without
the model or a run: pins, archives and fixtures made here."""

from pathlib import Path
from typing import Any

import pytest

from fixtures.archives import TINY_DIR, tiny_archive, write_zip
from harness.validator.core.report import Report
from harness.validator.dataset.check_dataset import check_archive, check_dataset
from harness.validator.dataset.content import Content, document_semantic_text, query_semantic_text
from harness.validator.dataset.derive_pins import derive
from harness.validator.dataset.pins import all_pins

from .support import check_named

QRELS = "tiny/qrels/test.tsv"


def test_an_archive_with_another_judgement_derives_other_pins(tmp_path: Path) -> None:
    """derive() reads the archive, not the pins it is given: one judgement changed changes the derived judgements,
    their digest and their count."""
    pins = all_pins()["tiny-test"]
    qrels = (TINY_DIR / "qrels" / "test.tsv").read_bytes()
    changed = qrels.replace(b"q1\td08\t1", b"q1\td09\t1") + b"q2\td03\t1\n"
    assert changed != qrels + b"q2\td03\t1\n"
    derived = derive(pins, tiny_archive(tmp_path / "other.zip", {QRELS: changed}))
    assert derived["qrels"]["q1"] == {"d01": 1, "d09": 1} and derived["qrels"]["q2"]["d03"] == 1
    assert derived["qrels"] != pins.qrels
    assert derived["content_sha256"]["qrels"] != pins.content_sha256["qrels"]
    assert derived["contract"]["test_qrel_pairs"] == pins.contract["test_qrel_pairs"] + 1
    assert derived["member_files"]["tiny/qrels/test.tsv"] != pins.member_files["tiny/qrels/test.tsv"]
    unchanged = {key: derived["content_sha256"][key] for key in ("documents", "queries", "document_semantic_texts")}
    assert unchanged == {key: pins.content_sha256[key] for key in unchanged}


def test_an_archive_with_another_document_text_derives_other_digests(tmp_path: Path) -> None:
    pins = all_pins()["tiny-test"]
    corpus = (TINY_DIR / "corpus.tiny.jsonl").read_bytes().replace(b"Low-dose aspirin", b"High-dose aspirin", 1)
    derived = derive(pins, tiny_archive(tmp_path / "other.zip", {"tiny/corpus.jsonl": corpus}))
    for key in ("documents", "document_semantic_texts"):
        assert derived["content_sha256"][key] != pins.content_sha256[key], key
    assert derived["qrels"] == pins.qrels


def _scifact_check(ir_datasets_id: Any) -> str:
    pins = all_pins()["beir-scifact"]
    fixture = {"contract": {"name": "beir-scifact"}, "documents": [], "queries": [], "profile": dict(pins.profile)}
    receipt = {"corpus": {"ir_datasets_id": ir_datasets_id}, "profile": dict(pins.profile)}
    report = Report("a made-up SciFact fixture")
    check_dataset(fixture, receipt, report)
    return str(check_named(report, "corpus.ir_datasets_id").status)


@pytest.mark.parametrize(("stated", "status"), [("beir/scifact/test", "pass"), ("beir/scifact/train", "fail"),
                                                ("beir/nfcorpus/test", "fail"), (None, "fail")])
def test_the_scifact_receipt_must_name_the_pinned_ir_datasets_id(stated: Any, status: str) -> None:
    assert _scifact_check(stated) == status


def test_a_semantic_text_is_cut_at_the_ceiling_in_code_points() -> None:
    assert document_semantic_text(" Title ", "é" * 20, 10) == "Title éééé"
    assert len(document_semantic_text("", "x" * 50, 10)) == 10
    assert query_semantic_text("  " + "q" * 30 + " ", 12) == "q" * 12


def test_the_judgement_pairs_are_counted_one_by_one() -> None:
    content = Content((), (("q1", "a"), ("q2", "b")), {"q1": {"d1": 1, "d2": 1}, "q2": {"d3": 2}})
    assert content.shape() == {"documents": 0, "test_queries": 2, "test_qrel_pairs": 3}


def test_a_receipt_of_another_profile_than_the_fixtures_fails_profile_contract() -> None:
    """The fixture's profile is the contract's; a receipt stating another (a parity run's) is not a claim."""
    pins = all_pins()["tiny-test"]
    fixture = {"contract": dict(pins.contract), "documents": [], "queries": [], "profile": dict(pins.profile)}
    statuses = []
    for profile in (dict(pins.profile), {**pins.profile, "name": "mteb-parity", "is_contract": False}):
        report = Report("a made-up tiny fixture")
        check_dataset(fixture, {"corpus": {"ir_datasets_id": None}, "profile": profile}, report)
        statuses.append(check_named(report, "profile.contract").status)
    assert statuses == ["pass", "fail"]


def test_an_archive_named_explicitly_must_hold_the_pinned_members(tmp_path: Path) -> None:
    """--archive names the dataset's archive: one holding none of its members fails archive.members (only
    $SCIFACT_ARCHIVE holding another dataset is passed over)."""
    other = write_zip(tmp_path / "other.zip", {"other/corpus.jsonl": b"{}\n"})
    report = Report("a made-up tiny fixture")
    check_archive({}, all_pins()["tiny-test"], other, report)
    assert check_named(report, "archive.members").status == "fail"
    missing = Report("a made-up tiny fixture")
    check_archive({}, all_pins()["tiny-test"], tmp_path / "missing.zip", missing)
    assert check_named(missing, "archive.members").status == "fail"
