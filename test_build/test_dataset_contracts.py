"""Datasets as contracts: the public BEIR contracts are consistent with their sources and with the validator's own
pins, a contract pinned by its archive alone refuses another archive, and `--dataset` names the dataset everywhere.

The public archives are not downloaded here (no network); their contracts are checked against ir_datasets'
published pins, stated below with their source."""

import dataclasses
import hashlib
import json
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from fixtures.archives import tiny_archive, tiny_contract, tiny_members, write_zip
from harness.cli import app as cli
from harness.cli.parsing.dataset import fixture_contract
from harness.corpus.contract import Contract, contract_named, contract_of, dataset_names, scifact_contract
from harness.embedding.embedders.local import LocalEmbedder
from harness.errors import ArchiveDigestMismatch, HarnessError
from harness.fixture.build import BuildReport, build_fixture
from harness.fixture.corpus_fixture import CorpusFixture
from harness.fixture.pinning import unpinned_parts
from harness.validator.dataset.pins import all_pins

# allenai/ir_datasets, ir_datasets/etc/downloads.json (md5, bytes) and etc/metadata.json (documents, test queries,
# test judgements), read at commit 02a8f21c
IR_DATASETS = {
    "scifact": ("beir/scifact/test", "5f7d1de60b170fc8027bb7898e2efca1", 2816079, 5183, 300, 339),
    "nfcorpus": ("beir/nfcorpus/test", "a89dba18a62ef92f7d323ec890a0d38d", 2448432, 3633, 323, 12334),
    "scidocs": ("beir/scidocs", "38121350fc3a4d2f48850f6aff52e4a9", 142471588, 25657, 1000, 29928),
    "arguana": ("beir/arguana", "8ad3e3c2a5867cdced806d6503f29b99", 3773617, 8674, 1406, 1406),
    "fiqa": ("beir/fiqa/test", "17918ed23cd04fb15047f73e6c3bd9d9", 17948027, 57638, 648, 1706),
    "trec-covid": ("beir/trec-covid", "ce62140cb23feb9becf6270d0d1fe6d1", 73876720, 171332, 50, 66336),
}


def test_the_shipped_datasets_are_the_public_beir_sets() -> None:
    assert set(dataset_names()) == set(IR_DATASETS)


@pytest.mark.parametrize("dataset", sorted(IR_DATASETS))
def test_each_contract_is_what_ir_datasets_publishes_and_consistent_in_itself(dataset: str) -> None:
    contract = contract_named(dataset)
    ir_id, md5, size, documents, queries, pairs = IR_DATASETS[dataset]
    assert (contract.ir_datasets_id, contract.source_archive_md5, contract.source_archive_bytes) == (ir_id, md5, size)
    assert (contract.documents, contract.test_queries, contract.test_qrel_pairs) == (documents, queries, pairs)
    assert contract.source_url == f"https://public.ukp.informatik.tu-darmstadt.de/thakur/BEIR/datasets/{dataset}.zip"
    assert contract.name == contract.namespace == f"beir-{dataset}"
    assert {contract.corpus_member, contract.queries_member, contract.qrels_member} == {
        f"{dataset}/corpus.jsonl", f"{dataset}/queries.jsonl", f"{dataset}/qrels/test.tsv"}
    assert 0 < contract.calibration_count < contract.test_queries
    assert contract.limits.max_archive_bytes > size
    assert contract.measures == {"ndcg_gain": "grade", "map_denominator": "relevant"}  # trec_eval's, as BEIR's
    assert contract_of(contract.name) == (dataset, contract)


@pytest.mark.parametrize("dataset", sorted(IR_DATASETS))
def test_the_validator_holds_its_own_pins_of_each_contract_and_they_agree(dataset: str) -> None:
    """Two copies kept apart on purpose (the validator reads nothing of the harness): they must agree."""
    contract = contract_named(dataset)
    pins = all_pins()[contract.name]
    assert pins.contract == contract.summary() and pins.measures == contract.measures
    assert pins.ir_datasets_id == contract.ir_datasets_id
    assert pins.members == {"corpus": contract.corpus_member, "queries": contract.queries_member,
                            "qrels": contract.qrels_member}
    original = pins.original_container or {}
    assert (original["bytes"], original["md5"], original["url"]) == (
        contract.source_archive_bytes, contract.source_archive_md5, contract.source_url)
    assert pins.archive_only == contract.pinned_by_archive_only == (dataset != "scifact")


def test_an_unknown_dataset_is_named_with_the_ones_shipped() -> None:
    with pytest.raises(HarnessError, match="no dataset named 'msmarco'; the harness ships contracts for arguana"):
        contract_named("msmarco")


def test_scifact_is_the_default_and_its_contract_file_is_unchanged_in_meaning() -> None:
    scifact = scifact_contract()
    assert scifact == contract_named("scifact") and not scifact.pinned_by_archive_only
    assert scifact.summary() == all_pins()["beir-scifact"].contract  # what every SciFact fixture records


def _archive_pinned(archive: Path) -> Contract:
    """The tiny contract pinned as the public BEIR sets are: by its archive's size and md5 alone."""
    data = archive.read_bytes()
    return dataclasses.replace(tiny_contract(), pinned_payload_sha256={}, pinned_content_sha256={},
                               source_archive_bytes=len(data), source_archive_md5=hashlib.md5(data).hexdigest())


def _repacked(path: Path) -> Path:
    """The same members, stored without the directory entries: other bytes, another md5."""
    return write_zip(path, tiny_members(), directories=False)


@pytest.mark.real_model
def test_an_archive_pinned_contract_builds_from_its_archive_and_refuses_another(
        local_embedder: LocalEmbedder, tmp_path: Path) -> None:
    archive = tiny_archive(tmp_path / "tiny.zip")
    contract = _archive_pinned(archive)
    report = build_fixture(contract, out=tmp_path / "f.json", work_dir=tmp_path / "work", embedder=local_embedder,
                           archive=archive, progress=False)
    fixture = json.loads(report.fixture.read_text(encoding="utf-8"))
    assert fixture["source"]["payload_pinned"] is True and unpinned_parts(fixture, contract) == []

    other = _repacked(tmp_path / "repacked.zip")
    with pytest.raises(ArchiveDigestMismatch, match=f"archive {other} has .* md5 {contract.source_archive_md5}"):
        build_fixture(contract, out=tmp_path / "g.json", work_dir=tmp_path / "work", embedder=local_embedder,
                      archive=other, progress=False)
    assert not (tmp_path / "g.json").exists()

    report = build_fixture(contract, out=tmp_path / "h.json", work_dir=tmp_path / "work", embedder=local_embedder,
                           archive=other, progress=False, allow_unpinned=True)
    unpinned = json.loads(report.fixture.read_text(encoding="utf-8"))
    assert unpinned["source"]["payload_pinned"] is False and unpinned_parts(unpinned, contract) == ["archive"]


def test_a_member_pinned_contract_still_takes_a_repacked_archive_of_the_same_members(tmp_path: Path) -> None:
    """SciFact's contract pins every member: a re-packed zip (another md5) of the same members is still SciFact."""
    from harness.corpus.dataset import load_dataset
    dataset = load_dataset(_repacked(tmp_path / "repacked.zip"), tiny_contract())
    assert dataset.pinned


def _fixture_named(name: str) -> CorpusFixture:
    return cast(CorpusFixture, SimpleNamespace(path=Path("/data/f.json"), data={"contract": {"name": name}}))


def test_run_and_freeze_read_the_dataset_from_the_fixture_and_refuse_another() -> None:
    assert fixture_contract(_fixture_named("beir-nfcorpus"), None) == contract_named("nfcorpus")
    assert fixture_contract(_fixture_named("beir-nfcorpus"), "nfcorpus") == contract_named("nfcorpus")
    with pytest.raises(HarnessError, match=r"is a nfcorpus fixture .*not --dataset scifact; pass the scifact fixture"):
        fixture_contract(_fixture_named("beir-nfcorpus"), "scifact")
    with pytest.raises(HarnessError, match=r"^fixture /data/f.json: .*contract named 'my-own', which the harness "
                                           r"does not ship .*build --dataset NAME"):
        fixture_contract(_fixture_named("my-own"), None)


@pytest.mark.parametrize("command", ["build", "run", "freeze"])
def test_a_dataset_not_shipped_is_a_usage_error_naming_the_choices(command: str,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli.main([command, "--dataset", "msmarco"], prog="python -m harness")
    assert stopped.value.code == 2
    assert "--dataset: invalid choice: 'msmarco'" in capsys.readouterr().err


def test_the_scifact_archive_variable_never_stands_in_for_another_dataset(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """$SCIFACT_ARCHIVE set for SciFact must not be read as NFCorpus: the build downloads (here: refused offline
    by a deadline of zero seconds) instead of parsing SciFact under NFCorpus's contract."""
    monkeypatch.setenv("SCIFACT_ARCHIVE", str(tiny_archive(tmp_path / "tiny.zip")))
    code = cli.main(["build", "--dataset", "nfcorpus", "--out", str(tmp_path / "f.json"), "--work-dir",
                     str(tmp_path / "work"), "--download-deadline", "0.001", "--no-progress"], prog="python -m harness")
    err = capsys.readouterr().err
    assert code != 0 and "nfcorpus.zip" in err and "tiny.zip" not in err, err


@pytest.mark.real_data
def test_build_dataset_scifact_writes_the_fixture_byte_for_byte(scifact_archive: Path, scifact_build: BuildReport,
                                                                 work_dir: Path, tmp_path: Path) -> None:
    """The generic path (`--dataset scifact`) and the default one give the same fixture and vectors."""
    out = tmp_path / "scifact-corpus.json"
    code = cli.main(["build", "--dataset", "scifact", "--archive", str(scifact_archive), "--out", str(out),
                     "--work-dir", str(work_dir), "--no-progress"], prog="python -m harness")
    assert code == 0
    assert out.read_bytes() == scifact_build.fixture.read_bytes()
    [vectors] = tmp_path.glob("scifact-corpus.vectors-*.f32")
    assert vectors.read_bytes() == (scifact_build.fixture.parent / vectors.name).read_bytes()


def test_a_contract_pinning_neither_its_members_nor_its_archive_is_refused_when_read() -> None:
    data = json.loads((Path(__file__).resolve().parent.parent / "harness" / "contracts" / "nfcorpus.json")
                      .read_text(encoding="utf-8"))
    del data["source_archive"]["md5"]
    with pytest.raises(HarnessError, match="pins neither its members nor its archive's size and md5"):
        Contract.from_mapping(data)
