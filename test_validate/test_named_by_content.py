"""A dataset is named by its content: a collection of one's own whose contract goes by SciFact's name (the harness's
refusals lifted, as a forger working in-process would) is still the publisher's own collection to the validator, its
run FAILs `corpus.name`, and the reader's `--dataset scifact` FAILs; the harness refuses such a contract on any path
it is read by, not only on the command line."""

from pathlib import Path
from typing import NamedTuple

import pytest

from fixtures.archives import tiny_members
from harness.corpus import contract as contracts
from harness.corpus import declared
from harness.corpus.contract import Contract
from harness.embedding.embedders.local import LocalEmbedder
from harness.errors import HarnessError
from harness.evaluation.run_split import Evaluation, run_split
from harness.fixture.build import build_fixture
from harness.fixture.corpus_fixture import load_fixture
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.store.store import build_store
from harness.validator.core.report import Report
from harness.validator.dataset.named import check_named
from harness.validator.pipeline import validate

from . import primary_forger
from .support import RunCopy


class Forged(NamedTuple):
    archive: Path
    aggregate: Path


def _collection(directory: Path) -> Path:
    for name, data in tiny_members().items():
        path = directory / name.removeprefix("tiny/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return directory


@pytest.fixture(scope="module")
def forged(local_embedder: LocalEmbedder, tmp_path_factory: pytest.TempPathFactory) -> Forged:
    """The tiny collection declared as `scifact`, with both of the harness's refusals of the name lifted, built and
    run on calibration."""
    root = tmp_path_factory.mktemp("named-scifact")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(declared, "_check_name", lambda name: None)
        patch.setattr(contracts, "_hold_shipped_name", lambda contract, data: None)
        archive = declared.pack_directory(_collection(root / "scifact"), "scifact", root / "scifact.zip")
        contract = Contract.from_mapping(declared.declare(archive, "scifact"))
        report = build_fixture(contract, out=root / "fixture" / "scifact.json", work_dir=root / "work",
                               embedder=local_embedder, archive=archive, progress=False)
        fixture, config = load_fixture(report.fixture), SearchConfig()
        store, _ = build_store(root / "store", fixture, contract.namespace, config.lexical)
        run_split(Evaluation(corpus=fixture.path, store_dir=store.directory, output_dir=root / "out",
                             split="calibration", config=config, modes=("fts_only",), argv=("test",)),
                  contract, fixture=fixture)
    [aggregate] = (root / "out").glob("*.aggregate.json")
    return Forged(archive, aggregate)


def test_the_harness_refuses_a_contract_going_by_a_shipped_datasets_name(tmp_path: Path) -> None:
    archive = declared.pack_directory(_collection(tmp_path / "c"), "mine", tmp_path / "mine.zip")
    for name in ("scifact", "beir-scifact", "nfcorpus"):
        with pytest.raises(declared.CollectionError, match="shipped dataset"):
            declared.declare(archive, name)
    mapping = declared.declare(archive, "mine")
    for key in ("name", "namespace"):
        with pytest.raises(HarnessError, match=r"goes by the name 'scifact' of the shipped dataset SciFact.*"
                                                r"a name of its own.*--dataset scifact"):
            Contract.from_mapping({**mapping, key: "scifact"})
    shipped = contracts.contract_named("scifact")
    assert shipped.name == "beir-scifact"  # the shipped contract itself, term for term, is SciFact's
    assert Contract.from_file(Path(contracts.__file__).parent.parent / "contracts" / "scifact.json") == shipped


@pytest.mark.real_model
def test_a_collection_called_scifact_is_the_publishers_own_to_the_validator(forged: Forged) -> None:
    assert forged.aggregate.name == "scifact-fts_only-calibration.aggregate.json"  # the names read as SciFact's
    report = validate(forged.aggregate, embeddings=False, archive=forged.archive)
    checks = {check.name: check for check in report.checks}
    assert checks["corpus.pinned"].status == "pass"  # it is what its archive holds ...
    assert checks["corpus.name"].status == "fail"  # ... and it goes by SciFact's name
    assert "'scifact' (BEIR SciFact" in checks["corpus.name"].line() and not report.eligible
    assert report.notes["dataset"]["own"] is True

    check_named(report, "scifact")
    named = {check.name: check for check in report.checks}["dataset.named"]
    assert named.status == "fail", named.line()
    assert "scifact (a collection of the publisher's own)" in named.line()
    assert "not BEIR SciFact (test split)'s pinned content" in named.line()


def test_dataset_named_holds_the_established_dataset_by_equality() -> None:
    def named(dataset: dict[str, object], wanted: str) -> str:
        report = Report("r", notes={"dataset": dataset})
        check_named(report, wanted)
        return report.checks[-1].status
    pinned = {"name": "beir-scifact", "established": True}
    assert named(pinned, "scifact") == "pass"
    assert named(pinned, "scifac") == "fail" and named(pinned, "nfcorpus") == "fail"
    assert named({**pinned, "established": False}, "scifact") == "fail"  # its content was not the pinned content
    own = {"name": "mine", "own": True, "established": True}
    assert named(own, "mine") == "pass" and named(own, "min") == "fail"
    assert named({"name": "scifact", "own": True, "established": True}, "scifact") == "fail"
    report = Report("c", notes={"compared_datasets": ["scifact", "nfcorpus"]})
    check_named(report, "scifact")  # a comparison of runs on two datasets is neither
    assert report.checks[-1].status == "fail"


@pytest.mark.real_model
def test_a_pinned_name_over_other_judgements_is_no_dataset_established(run_copy: RunCopy) -> None:
    """The tiny run's fixture judged by its own dense rankings, every digest re-derived: it still says tiny-test, and
    corpus.pinned FAILs; the reader's --dataset tiny-test FAILs too, since no dataset was established by content."""
    primary_forger.forge_judgements(run_copy, "calibration")
    report = validate(run_copy.aggregate_path("fts_only", "calibration"), embeddings=False)
    assert {c.name: c.status for c in report.checks}["corpus.pinned"] == "fail"
    assert report.notes["dataset"]["established"] is False
    check_named(report, "tiny-test")
    named = {check.name: check for check in report.checks}["dataset.named"]
    assert named.status == "fail" and "established no dataset" in named.line(), named.line()
