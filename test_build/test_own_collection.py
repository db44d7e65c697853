"""A collection of the user's own: a BEIR-layout directory declared as a contract (`python -m harness contract`), built,
run, frozen and validated, with the validator re-deriving it from the archive the reader names. Its identity is
the declared digest, and the validator says so."""

import json
import shutil
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from fixtures.archives import tiny_members, write_zip
from fixtures.bundle_reader import fresh_reader
from fixtures.clean_checkout import mark_clean_checkout
from harness.cli import app as cli
from harness.corpus.contract import Contract
from harness.corpus.declared import CollectionError, declare, pack_directory
from harness.embedding.embedders.local import LocalEmbedder
from harness.evaluation.gates.freeze import freeze_configuration
from harness.evaluation.history.heldout_record import RECORD_VARIABLE
from harness.evaluation.receipts.locations import place_archive
from harness.evaluation.run_split import Evaluation, run_split
from harness.fixture.build import build_fixture
from harness.fixture.corpus_fixture import CorpusFixture, load_fixture
from harness.modes import SEARCHED as MODES
from harness.publish.bundle import make_bundle
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.store.store import Store, build_store
from harness.systems.builtin.system import BuiltinSystem
from harness.validator.cli import main as validator_main
from harness.validator.pipeline import validate

GIT_CHECKS = {"source.clean", "source.git"}


def _collection(directory: Path, members: dict[str, bytes] | None = None) -> Path:
    """The tiny corpus as a user keeps a BEIR collection: corpus.jsonl, queries.jsonl, qrels/test.tsv."""
    for name, data in (members or tiny_members()).items():
        path = directory / name.removeprefix("tiny/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return directory


def test_a_directory_is_packed_the_same_every_time_and_declared_with_every_pin(tmp_path: Path) -> None:
    collection = _collection(tmp_path / "mine")
    first = pack_directory(collection, "mine", tmp_path / "a" / "mine.zip")
    second = pack_directory(collection, "mine", tmp_path / "b" / "mine.zip")
    assert first.read_bytes() == second.read_bytes()
    declared = declare(first, "mine")
    contract = Contract.from_mapping(declared)
    assert (contract.documents, contract.test_queries, contract.test_qrel_pairs) == (10, 6, 8)
    assert contract.calibration_count == 2 and not contract.pinned_by_archive_only
    assert set(contract.pinned_payload_sha256) == {"mine/corpus.jsonl", "mine/queries.jsonl", "mine/qrels/test.tsv"}
    assert set(contract.pinned_content_sha256) == {"documents", "queries", "qrels"}
    assert contract.ir_datasets_id is None and "no public pin" in declared["source_archive"]["pinned_by"]


@pytest.mark.parametrize(("change", "message"), [
    ("no-qrels", "lacks qrels/SPLIT.tsv"),
    ("no-queries", "lacks queries.jsonl"),
    ("shipped-name", "'scifact' is the name of a shipped dataset"),
    ("bad-name", "collection name 'my coll'"),
    ("calibration", "--calibration-count 6: it must leave at least one query on each side of the 6"),
    ("split", "0 members named qrels/dev.tsv"),
    ("dangling", "judges document 'nowhere', which corpus.jsonl does not have"),
])
def test_every_bad_collection_is_named_with_the_fix(tmp_path: Path, change: str, message: str) -> None:
    members = tiny_members()
    if change == "dangling":
        members["tiny/qrels/test.tsv"] += b"q1\tnowhere\t1\n"
    collection = _collection(tmp_path / "mine", members)
    if change == "no-qrels":
        (collection / "qrels" / "test.tsv").unlink()
    if change == "no-queries":
        (collection / "queries.jsonl").unlink()
    with pytest.raises(Exception, match=message):
        archive = pack_directory(collection, "mine", tmp_path / "mine.zip")
        declare(archive, {"shipped-name": "scifact", "bad-name": "my coll"}.get(change, "mine"),
                split="dev" if change == "split" else "test", calibration_count=6 if change == "calibration" else None)


def test_an_archive_with_two_corpora_is_refused(tmp_path: Path) -> None:
    members = tiny_members() | {"other/corpus.jsonl": tiny_members()["tiny/corpus.jsonl"]}
    with pytest.raises(CollectionError, match=r"holds 2 members named corpus\.jsonl"):
        declare(write_zip(tmp_path / "two.zip", members), "mine")


def test_the_contract_command_writes_the_contract_and_the_archive(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    collection = _collection(tmp_path / "mine")
    out = tmp_path / "contracts" / "mine.json"
    assert cli.main(["contract", "--dataset-dir", str(collection), "--name", "mine", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert json.loads(out.read_text(encoding="utf-8"))["name"] == "mine" and (out.parent / "mine.zip").is_file()
    assert "python -m harness build --contract" in printed
    assert cli.main(["contract", "--dataset-dir", str(tmp_path / "nope"), "--name", "mine", "--out", str(out)]) == 2
    assert "holding corpus.jsonl, queries.jsonl and qrels/" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["scifact", "beir-nfcorpus"])
def test_a_refused_contract_leaves_nothing_behind(tmp_path: Path, name: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    collection = _collection(tmp_path / "mine")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    for source in (["--dataset-dir", str(collection)], ["--archive", str(pack_directory(
            collection, "mine", tmp_path / "packed" / "mine.zip"))]):
        before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
        out = tmp_path / "new" / "contracts" / f"{name}.json"
        assert cli.main(["contract", *source, "--name", name, "--out", str(out)]) == 2
        assert "name of a shipped dataset" in capsys.readouterr().err
        assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before  # no folder, zip or file


class HeldOut(NamedTuple):
    archive: Path
    fixture: CorpusFixture
    store: Store
    out: Path
    record: Path


@pytest.fixture(scope="module")
def held_out(local_embedder: LocalEmbedder, tmp_path_factory: pytest.TempPathFactory) -> HeldOut:
    """The tiny collection declared as one's own, built, calibrated, frozen and run on held-out, with a held-out
    record of its own (each test that reads it names it), once for the module's tests: they read it, never write it."""
    root = tmp_path_factory.mktemp("own-collection")
    record = root / "looks" / "heldout-looks.sqlite3"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(RECORD_VARIABLE, str(record))
        archive = pack_directory(_collection(root / "mine"), "mine", root / "mine.zip")
        contract = Contract.from_mapping(declare(archive, "mine"))
        report = build_fixture(contract, out=root / "fixture" / "mine.json", work_dir=root / "work",
                               embedder=local_embedder, archive=archive, progress=False)
        fixture, config, out = load_fixture(report.fixture), SearchConfig(), root / "out"
        store, _ = build_store(root / "store", fixture, contract.namespace, config.lexical)
        for split in ("calibration", "heldout"):
            if split == "heldout":
                freeze_configuration(fixture=fixture, system=BuiltinSystem(store, config), contract=contract,
                                     modes=MODES, output_dir=out, argv=["test"], allow_dirty=True, replace=False)
            run_split(Evaluation(corpus=fixture.path, store_dir=store.directory, output_dir=out, split=split,
                                 config=config, argv=("test",)), contract, fixture=fixture)
    return HeldOut(archive, fixture, store, out, record)


@pytest.mark.real_model
def test_a_collection_of_ones_own_is_frozen_and_validated_from_its_archive(held_out: HeldOut, tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(RECORD_VARIABLE, str(held_out.record))
    archive, out = held_out.archive, held_out.out
    [aggregate] = out.glob("*hybrid-heldout.aggregate.json")
    assert aggregate.name == "mine-hybrid-heldout.aggregate.json"  # the names carry the collection's name
    verified = validate(aggregate, embeddings=False, archive=archive)
    failed = {check.name for check in verified.failed}
    assert not failed - GIT_CHECKS, [c.line() for c in verified.failed]
    assert "no public pin" in verified.notes["dataset"]["pinned_by"]
    assert {c.name: c.status for c in verified.checks}["corpus.pinned"] == "pass"

    unverified = validate(aggregate, embeddings=False)  # no archive at hand: not verified, naming the zip to pass
    assert not {c.name for c in unverified.failed} - GIT_CHECKS
    pinned = {c.name: c for c in unverified.checks}["corpus.pinned"]
    assert pinned.status == "not verified" and "--archive mine.zip" in pinned.detail, pinned.line()

    placed = Path(shutil.copytree(out, tmp_path / "placed"))  # the archive placed as `run` places it
    assert place_archive(placed, held_out.fixture, archive) is None
    [found] = placed.glob("*hybrid-heldout.aggregate.json")
    assert {c.name: c.status for c in validate(found, embeddings=False).checks}["corpus.pinned"] == "pass"
    assert place_archive(placed, held_out.fixture, tmp_path / "absent.zip") == tmp_path / "absent.zip"

    other = pack_directory(_collection(tmp_path / "edited", tiny_members() | {
        "tiny/qrels/test.tsv": tiny_members()["tiny/qrels/test.tsv"].replace(b"d01\t1", b"d01\t2", 1)}), "mine",
        tmp_path / "edited.zip")
    assert other.read_bytes() != archive.read_bytes()
    swapped = validate(aggregate, embeddings=False, archive=other)
    assert {"corpus.pinned", "archive.members"} <= {c.name for c in swapped.failed}


def test_the_next_commands_of_another_dataset_carry_its_options_and_no_scifact_suite(tmp_path: Path) -> None:
    from harness.cli.summary import after_freeze, next_step
    paths: dict[str, Any] = {"corpus": tmp_path / "c.json", "store_dir": tmp_path / "s", "output_dir": tmp_path / "o"}
    own, archive = ("--contract", "contracts/mine.json"), ("--archive", "contracts/mine.zip")
    held_out = after_freeze(dataset=own, archive=archive, **paths)
    assert "--split heldout --contract contracts/mine.json --archive contracts/mine.zip" in held_out
    assert "-m pytest" not in held_out  # the suite is SciFact's
    frozen = next_step("calibration", work_dir=tmp_path, dataset=own, archive=archive, **paths)
    assert frozen.rstrip().endswith("--contract contracts/mine.json")
    bundle = next_step("heldout", work_dir=tmp_path, dataset=own, archive=archive, **paths)
    assert "-m pytest" not in bundle and bundle.rstrip().endswith("--archive contracts/mine.zip")
    assert "pytest -m heldout" in after_freeze(**paths)  # SciFact's next step is still the suite's


def _bundled(out: Path, bundle_dir: Path, archive: Path) -> Path:
    mark_clean_checkout(out)  # the receipts as a fresh clone of this repository would write them
    return make_bundle(out, bundle_dir, archive)


@pytest.mark.real_model
def test_a_collection_of_ones_own_reaches_an_eligible_bundle_its_reader_re_derives(
        held_out: HeldOut, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(RECORD_VARIABLE, str(held_out.record))
    archive, fixture = held_out.archive, held_out.fixture
    out = Path(shutil.copytree(held_out.out, tmp_path / "out"))  # the bundle marks its receipts as a clean clone's
    bundle = _bundled(out, tmp_path / "bundle", archive)
    claims = (bundle / "CLAIMS.md").read_text(encoding="utf-8")
    assert "retrieval evaluation on mine (a collection of the publisher's own)" in claims
    assert "no public pin" in claims and "`scifact-validate --bundle .`" in claims
    assert (bundle / "inputs" / "archive" / "mine.zip").read_bytes() == archive.read_bytes()  # carried for its reader
    assert "the collection's archive is carried, `inputs/archive/mine.zip`" in claims

    fresh_reader(tmp_path / "reader", monkeypatch)
    capsys.readouterr()
    assert validator_main(["--bundle", str(bundle), "--archive", str(archive), "--fixture", str(fixture.path),
                           "--dataset", "mine"]) == 0
    said = capsys.readouterr().out
    assert said.splitlines()[-1].startswith("BUNDLE       ELIGIBLE for a claim"), said
    names = {path.name for path in (bundle / "artifacts").iterdir()} | {p.name for p in (bundle / "exports").iterdir()}
    assert {"mine-hybrid-heldout.aggregate.json", "mine-comparison-heldout.json", "mine-hybrid-heldout.run",
            "mine-heldout.qrels", "mine-headline.tex"} <= names and not [n for n in names if "scifact" in n]
    assert validator_main(["--bundle", str(bundle), "--archive", str(archive), "--fixture", str(fixture.path),
                           "--dataset", "scifact"]) == 1
    said = capsys.readouterr().out  # the reader held it to SciFact: the validator established mine
    assert ("FAIL         dataset.named: --dataset scifact: the artifact is a run of mine (a collection of the "
            "publisher's own)") in said
    # without --archive: the one the bundle carries
    assert validator_main(["--bundle", str(bundle), "--fixture", str(fixture.path)]) == 0
    assert "PASS         corpus.pinned" in capsys.readouterr().out
