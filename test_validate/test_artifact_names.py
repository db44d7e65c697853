"""Artifact names carry the dataset, and one output directory holds one dataset's evaluation."""

import json
import shutil
from pathlib import Path

import pytest

from fixtures.archives import TINY_DATASET
from harness.corpus.contract import DEFAULT_DATASET, artifact_dataset, contract_named, dataset_names
from harness.evaluation.comparison.inputs import ComparisonRefused, load_input
from harness.evaluation.receipts.artifacts import (
    MixedDatasetsError,
    aggregate_name,
    datasets_in,
    named_dataset,
    output_dataset,
    refuse_another_dataset,
    rows_name,
)
from harness.validator.dataset.pins import all_pins, artifact_name

from .support import CleanRun


def test_each_shipped_dataset_names_its_artifacts_by_the_name_dataset_takes() -> None:
    for dataset in dataset_names():
        assert artifact_dataset(contract_named(dataset).name) == dataset
    assert aggregate_name(DEFAULT_DATASET, "hybrid", "heldout") == "scifact-hybrid-heldout.aggregate.json"
    assert rows_name("trec-covid", "fts_only", "all") == "trec-covid-fts_only-all.jsonl"
    assert artifact_dataset("mine") == "mine"  # a collection of one's own: its contract's name


def test_the_validator_reads_the_same_names_from_its_own_pins() -> None:
    shipped = {contract_named(dataset).name: dataset for dataset in dataset_names()}
    pinned = {pins.dataset: pins.artifact_name for pins in all_pins().values() if pins.dataset in shipped}
    assert pinned == shipped
    assert artifact_name("mine") == "mine" and artifact_name(None) == "None"


@pytest.mark.parametrize(("name", "dataset"), [
    ("scifact-hybrid-heldout.aggregate.json", "scifact"),
    ("trec-covid-vector_only-all.aggregate.json", "trec-covid"),
    ("my.set_2-fts_only-calibration.aggregate.json", "my.set_2"),
    ("-hybrid-heldout.aggregate.json", None),
    ("scifact-comparison-heldout.json", None),
    ("scifact-hybrid-test.aggregate.json", None),
])
def test_a_file_name_gives_its_dataset(name: str, dataset: str | None) -> None:
    assert named_dataset(name) == dataset


def test_an_output_directory_of_two_datasets_is_refused_by_name(tmp_path: Path) -> None:
    assert output_dataset(tmp_path / "none") is None and output_dataset(tmp_path) is None
    (tmp_path / "scifact-hybrid-calibration.aggregate.json").write_text("{}")
    refuse_another_dataset(tmp_path, "scifact")
    assert output_dataset(tmp_path) == "scifact"
    with pytest.raises(MixedDatasetsError, match=r"holds runs of scifact, and this run is of nfcorpus"):
        refuse_another_dataset(tmp_path, "nfcorpus")
    (tmp_path / "nfcorpus-fts_only-calibration.aggregate.json").write_text("{}")
    assert datasets_in(tmp_path) == ["nfcorpus", "scifact"]
    with pytest.raises(MixedDatasetsError, match=r"holds runs of nfcorpus and scifact; one output directory holds "
                                                 r"one dataset's evaluation"):
        output_dataset(tmp_path)


def test_a_run_renamed_for_another_dataset_is_refused_by_the_comparison(clean_run: CleanRun, tmp_path: Path) -> None:
    """The tiny run's files renamed as SciFact's: the receipt says tiny-test, so the name is refused, not believed."""
    for suffix in (".jsonl", ".aggregate.json"):
        shutil.copy2(clean_run.out / f"{TINY_DATASET}-fts_only-calibration{suffix}",
                     tmp_path / f"scifact-fts_only-calibration{suffix}")
    aggregate = json.loads((tmp_path / "scifact-fts_only-calibration.aggregate.json").read_bytes())
    assert aggregate["per_query_path"] == f"{TINY_DATASET}-fts_only-calibration.jsonl"
    with pytest.raises(ComparisonRefused, match="is named for scifact, but its receipt is a run of tiny-test"):
        load_input(tmp_path, "fts_only", "calibration")
