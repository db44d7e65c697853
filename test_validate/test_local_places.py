"""A receipt and a freeze record name no local place; the run's locations.json places what they bind, as a hint the
validator holds to the receipt's digests: found without options on the machine that ran, and a wrong or missing hint
fails naming the option to pass, never passes and never crashes."""

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

from harness.evaluation.receipts.locations import FIXTURES, INTERPRETERS, LOCATIONS_NAME, SOURCES, STORES
from harness.validator.cli import main
from harness.validator.pipeline import validate

from .support import MODES, SPLITS, CleanRun, RunCopy, check_named

LOCATED = ("corpus.fixture", "corpus.vectors", "store.live", "store.parts", "store.mapping_path", "ledger.file",
           "executable.interpreter")


def _strings(value: Any, where: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield where + "." + str(key), str(key)
            yield from _strings(item, where + "." + str(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, f"{where}[{i}]")


def _places(value: Any, local: list[str]) -> list[tuple[str, str]]:
    """Every string of `value` that is an absolute path, climbs out with '..', or names one of the `local` places."""
    return [(where, text) for where, text in _strings(value)
            if os.path.isabs(text) or ".." in PurePosixPath(text).parts or any(place in text for place in local)]


def test_a_real_runs_receipts_and_freeze_record_hold_no_local_place(clean_run: CleanRun) -> None:
    local = [str(clean_run.root), str(Path.home()), os.environ.get("TMPDIR", "/tmp")]
    documents = {path.name: json.loads(path.read_text(encoding="utf-8"))
                 for path in [clean_run.freeze_path, *sorted(clean_run.out.glob("*.aggregate.json"))]}
    assert len(documents) == 1 + len(MODES) * len(SPLITS)
    found = {name: _places(document, local) for name, document in documents.items()}
    assert not {name: places for name, places in found.items() if places}, found
    receipt = documents["tiny-test-hybrid-heldout.aggregate.json"]["receipt"]
    assert (receipt["corpus"]["fixture_file"], receipt["store"]["directory_name"], receipt["freeze"]["file"],
            receipt["ledger"]["file"]) == (clean_run.fixture_path.name, clean_run.store_dir.name, "freeze.json",
                                           "ledger.sqlite3")


def test_the_runs_locations_place_what_the_receipts_bind(clean_run: CleanRun) -> None:
    places = json.loads((clean_run.out / LOCATIONS_NAME).read_text(encoding="utf-8"))
    receipt = json.loads(clean_run.aggregate_path("fts_only", "heldout").read_text(encoding="utf-8"))["receipt"]
    assert places[FIXTURES][receipt["corpus"]["fixture_sha256"]] == str(clean_run.fixture_path.absolute())
    assert places[STORES][receipt["store"]["store_sha256"]] == str(clean_run.store_dir.absolute())
    assert receipt["system"]["source"]["sha256"] in places[SOURCES]
    assert receipt["executable"]["interpreter_sha256"] in places[INTERPRETERS]


def test_the_validator_finds_fixture_and_store_without_options_from_elsewhere(
        run_copy: RunCopy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    report = validate(run_copy.aggregate_path("hybrid", "heldout"), embeddings=False)
    assert {name: check_named(report, name).status for name in LOCATED} == dict.fromkeys(LOCATED, "pass")
    assert f"placed by {run_copy.locations_path}" in check_named(report, "corpus.fixture").detail


def _lines(run_copy: RunCopy, capsys: pytest.CaptureFixture[str], *options: str) -> dict[str, str]:
    code = main([str(run_copy.aggregate_path("fts_only", "heldout")), "--no-embedding-check", *options])
    out = capsys.readouterr().out
    assert code in (0, 1, 7) and "Traceback" not in out, out  # 7: only the embedding check skipped
    return {name: line for line in out.splitlines() for name in ("corpus.fixture", "store.live", "ledger.file")
            if f" {name}: " in line}


def _refusals(run_copy: RunCopy, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    lines = _lines(run_copy, capsys)
    assert lines["corpus.fixture"].startswith("FAIL"), lines
    return lines


def test_locations_that_place_another_fixture_and_store_fail_naming_the_options(
        run_copy: RunCopy, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other"
    other.mkdir()
    fixture = json.loads(run_copy.clean.fixture_path.read_text(encoding="utf-8"))
    # other bytes under the same name, its vectors beside it: its parse is the fixture's, its sha256 is not
    (other / run_copy.clean.fixture_path.name).write_text(json.dumps(fixture), encoding="utf-8")
    shutil.copy2(run_copy.clean.fixture_path.parent / fixture["vectors"]["file"], other / fixture["vectors"]["file"])
    run_copy.place(FIXTURES, other / run_copy.clean.fixture_path.name)
    run_copy.place(STORES, other)
    lines = _refusals(run_copy, capsys)
    assert "--fixture FILE" in lines["corpus.fixture"] and "found 'sha256:" in lines["corpus.fixture"], lines
    for name in ("store.live", "ledger.file"):
        assert lines[name].startswith("FAIL") and "--store-dir DIR" in lines[name], lines


def test_without_locations_the_validator_names_the_options_to_pass(
        run_copy: RunCopy, capsys: pytest.CaptureFixture[str]) -> None:
    run_copy.locations_path.unlink()
    lines = _refusals(run_copy, capsys)  # without its fixture the store is not read (its mapping needs the fixture)
    for name, option in (("corpus.fixture", "--fixture FILE"), ("ledger.file", "--store-dir DIR")):
        assert lines[name].startswith("FAIL") and option in lines[name] and "does not exist" in lines[name], lines
    lines = _lines(run_copy, capsys, "--fixture", str(run_copy.clean.fixture_path), "--store-dir",
                   str(run_copy.clean.store_dir))
    assert len(lines) == 3 and all(line.startswith("PASS") for line in lines.values()), lines


def test_an_unreadable_locations_file_is_a_lost_hint_not_a_crash(
        run_copy: RunCopy, capsys: pytest.CaptureFixture[str]) -> None:
    run_copy.locations_path.write_text("{not json", encoding="utf-8")
    lines = _refusals(run_copy, capsys)
    assert "is not readable strict JSON" in lines["corpus.fixture"] and "--fixture FILE" in lines["corpus.fixture"]
