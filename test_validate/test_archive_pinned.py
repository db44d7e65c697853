"""A dataset the validator pins by its publisher's archive alone (size and md5, as ir_datasets pins the public
BEIR sets): the fixture is that dataset only as re-derived from that archive. The tiny run stands in, with the
tiny-test pins made archive-only for the test."""

import dataclasses
import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixtures.archives import tiny_archive, tiny_members, write_zip
from harness.validator.dataset import check_dataset as check_dataset_module
from harness.validator.dataset import pins as pins_module
from harness.validator.dataset.pins import Pins
from harness.validator.pipeline import validate

from . import primary_forger
from .support import GIT_CHECKS, CleanRun, RunCopy, assert_fails, check_named, describe, failed_names


@pytest.fixture
def publishers_archive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The tiny archive as the publisher's: the validator's tiny-test pins hold only its size and md5."""
    archive = tiny_archive(tmp_path / "tiny.zip")
    data = archive.read_bytes()
    pinned = dict(pins_module.all_pins())
    pinned["tiny-test"] = dataclasses.replace(
        pinned["tiny-test"], member_files={}, content_sha256={}, qrels={},
        original_container={"url": "https://example.org/datasets/tiny.zip", "bytes": len(data),
                            "md5": hashlib.md5(data).hexdigest(), "pinned_by": "the test"})
    assert pinned["tiny-test"].archive_only

    def archive_only_pins() -> dict[str, Pins]:
        return pinned

    monkeypatch.delenv("SCIFACT_ARCHIVE", raising=False)
    monkeypatch.setattr(pins_module, "all_pins", archive_only_pins)
    monkeypatch.setattr(check_dataset_module, "all_pins", archive_only_pins)
    yield archive


@pytest.mark.real_model
def test_a_genuine_run_re_derived_from_the_publishers_archive_passes(clean_run: CleanRun,
                                                                     publishers_archive: Path) -> None:
    report = validate(clean_run.aggregate_path("hybrid", "heldout"), embeddings=False, archive=publishers_archive)
    for name in ("corpus.pinned", "archive.members", "archive.content", "corpus.semantic_text"):
        assert check_named(report, name).status == "pass", describe(report)
    assert not failed_names(report) - GIT_CHECKS, describe(report)
    assert "the publisher's archive" in report.notes["archive"]


@pytest.mark.real_model
def test_without_the_archive_the_run_is_not_the_dataset_and_the_fix_is_named(clean_run: CleanRun,
                                                                             publishers_archive: Path) -> None:
    report = validate(clean_run.aggregate_path("hybrid", "heldout"), embeddings=False)
    assert_fails(report, ("corpus.pinned",))
    assert check_named(report, "corpus.pinned").expected == "the archive, passed with --archive tiny.zip"


@pytest.mark.real_model
def test_another_archive_of_the_same_members_is_not_the_publishers(clean_run: CleanRun, publishers_archive: Path,
                                                                   tmp_path: Path) -> None:
    repacked = write_zip(tmp_path / "repacked.zip", tiny_members(), directories=False)
    report = validate(clean_run.aggregate_path("hybrid", "heldout"), embeddings=False, archive=repacked)
    assert_fails(report, ("corpus.pinned", "archive.members"))
    assert "md5" in str(check_named(report, "corpus.pinned").found)


@pytest.mark.real_model
def test_forged_judgements_with_every_digest_re_derived_are_refused_by_the_archive(run_copy: RunCopy,
                                                                                  publishers_archive: Path) -> None:
    changed = primary_forger.forge_judgements(run_copy, "calibration")
    report = validate(run_copy.aggregate_path("vector_only", "calibration"), embeddings=False,
                      archive=publishers_archive)
    assert_fails(report, ("corpus.pinned", "archive.content"))
    assert f"judgements of query {changed[0]}" in str(check_named(report, "archive.content").found)
