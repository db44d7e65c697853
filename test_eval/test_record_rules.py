"""The held-out record's rules on entries appended here, without a run: where the record is, what names a dataset
(its calibration count among its terms), and what each look counts before it: the looks at the same dataset whatever
fixture bytes, the configurations other than its own (a configuration is system, configuration and store), and when
each earlier look was recorded."""

from pathlib import Path
from typing import Any

import pytest

from harness.evaluation.history import heldout_record
from harness.evaluation.history.heldout_record import RECORD_NAME, RECORD_VARIABLE, append_look, dataset_key

HASHES = {"documents": "sha256:d", "queries": "sha256:q", "qrels": "sha256:j"}


def test_a_relative_xdg_cache_home_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(RECORD_VARIABLE, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    assert heldout_record.record_path() == tmp_path / "home" / ".cache" / "scifact-harness" / RECORD_NAME
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert heldout_record.record_path() == tmp_path / "cache" / "scifact-harness" / RECORD_NAME


def test_the_calibration_count_is_part_of_the_dataset() -> None:
    """Another calibration count makes another held-out split of the same content: another dataset."""
    assert dataset_key("tiny-test", HASHES, 3) != dataset_key("tiny-test", HASHES, 4)
    assert dataset_key("tiny-test", HASHES, 3) == dataset_key("tiny-test", {**HASHES, "extra": "x"}, 3)


def _look(dataset: str = "sha256:dataset", fixture: str = "sha256:fixture", store: str = "sha256:store",
          **change: Any) -> heldout_record.Look:
    terms = {"dataset": "tiny-test", "dataset_sha256": dataset, "fixture_sha256": fixture, "split": "heldout",
             "mode": "hybrid", "system": "builtin", "configuration_sha256": "sha256:config", "store_sha256": store,
             "store_directory": "store", "freeze_sha256": "sha256:freeze", "host": "host", "run_id": "run", **change}
    return append_look(**terms)


@pytest.fixture(autouse=True)
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "looks.sqlite3"
    monkeypatch.setenv(RECORD_VARIABLE, str(path))
    return path


def test_looks_count_per_dataset_whatever_the_fixture_bytes() -> None:
    first = _look()
    again = _look(fixture="sha256:rebuilt")
    assert (first.looks_before, again.looks_before) == (0, 1)
    assert _look(dataset="sha256:another", fixture="sha256:rebuilt").looks_before == 0


def test_another_store_is_another_configuration_and_its_own_is_not_counted() -> None:
    _look()
    assert _look().other_configurations_before == 0
    assert _look(store="sha256:other-store").other_configurations_before == 1
    assert _look(configuration_sha256="sha256:other-config").other_configurations_before == 2


def test_each_earlier_look_is_listed_with_when_it_was_recorded() -> None:
    first = _look()
    second = _look(fixture="sha256:rebuilt")
    assert second.earlier_looks_at == [first.entry["recorded_at"]]
    assert _look(dataset="sha256:another").earlier_looks_at == []
