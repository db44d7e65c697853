"""The validator's command line: usage mistakes end in two lines and exit 2, never a traceback; receipts resolve from
any working directory; artifacts whose fixture and store moved validate with --fixture and --store-dir."""

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fixtures.cli import child_env, tiny_cli_process
from fixtures.unwritable import unwritable
from harness.validator.cli import main

from .support import CleanRun


def _validator(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.validator", *map(str, args)], cwd=cwd, env=child_env(),
                          capture_output=True, text=True, timeout=300, check=False)


def _statuses(report: Path) -> dict[str, str]:
    value: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    return {check["name"]: check["status"] for check in value["checks"]}


def _usage(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as caught:
        main(argv)
    err = capsys.readouterr().err
    assert caught.value.code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 2, err
    return err


def test_json_pointing_at_a_directory_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _usage([str(tmp_path / "a.aggregate.json"), "--json", str(tmp_path)], capsys)
    assert f"--json {tmp_path} is a directory" in err


def test_json_under_a_missing_directory_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _usage([str(tmp_path / "a.aggregate.json"), "--json", str(tmp_path / "no" / "r.json")], capsys)
    assert f"{tmp_path / 'no'} is not a directory" in err


def test_store_dir_must_be_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "f").write_text("x")
    err = _usage([str(tmp_path / "a.aggregate.json"), "--store-dir", str(tmp_path / "f")], capsys)
    assert f"--store-dir {tmp_path / 'f'} is not a directory" in err


def test_a_report_that_cannot_be_written_keeps_the_verdict_and_exits_2(clean_run: CleanRun, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "locked").mkdir()
    with unwritable(tmp_path / "locked"):
        code = main([str(clean_run.aggregate_path("fts_only", "calibration")), "--no-embedding-check", "--json",
                     str(tmp_path / "locked" / "report.json")])
    out, err = capsys.readouterr()
    assert code == 2 and "NOT ELIGIBLE" in out
    assert err.splitlines()[-1].startswith(f"error: --json {tmp_path / 'locked' / 'report.json'}: ")
    assert "Traceback" not in err


def _relative_run(clean_run: CleanRun, root: Path) -> Path:
    """The tiny fixture copied under `root`, then a CLI run there with every path given relative to `root`."""
    (root / "data").mkdir(parents=True)
    shutil.copy2(clean_run.fixture_path, root / "data" / "tiny.json")
    sidecar = json.loads(clean_run.fixture_path.read_bytes())["vectors"]["file"]
    shutil.copy2(clean_run.fixture_path.parent / sidecar, root / "data" / sidecar)
    result = tiny_cli_process(["run", "--corpus", "data/tiny.json", "--store-dir", "data/store", "--output-dir",
                               "out", "--split", "calibration", "--mode", "vector_only", "--no-validate"], cwd=root)
    assert result.returncode == 0, result.stderr
    return root / "out" / "tiny-test-vector_only-calibration.aggregate.json"


LOCATED = ("corpus.fixture", "corpus.vectors", "store.live", "store.parts", "store.mapping_path", "store.vectors",
           "store.facts", "ledger.file", "ledger.run", "replay.dense")


def _details(report: Path) -> dict[str, str]:
    value: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    return {check["name"]: check["detail"] for check in value["checks"]}


def test_receipts_resolve_from_any_working_directory_and_moved_trees_with_options(clean_run: CleanRun,
                                                                                  tmp_path: Path) -> None:
    """The receipt names the fixture, store and ledger, never their place: without an option the validator finds
    them, from any working directory, where the output directory's locations.json places them; once moved, the
    stale places fail, naming the option to pass, and the options find them."""
    aggregate = _relative_run(clean_run, tmp_path / "run")
    receipt = json.loads(aggregate.read_bytes())["receipt"]
    assert (receipt["corpus"]["fixture_file"], receipt["store"]["directory_name"], receipt["store"]["mapping_file"],
            receipt["ledger"]["file"]) == ("tiny.json", "store", "mapping.json", "ledger.sqlite3")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    report = tmp_path / "report.json"
    _validator(aggregate, "--no-embedding-check", "--json", report, cwd=elsewhere)
    assert {name: _statuses(report)[name] for name in LOCATED} == dict.fromkeys(LOCATED, "pass")

    moved = tmp_path / "moved"
    shutil.move(tmp_path / "run", moved)
    aggregate = moved / "out" / aggregate.name
    _validator(aggregate, "--no-embedding-check", "--json", report, cwd=elsewhere)
    statuses, details = _statuses(report), _details(report)
    assert statuses["corpus.fixture"] == "fail" and "--fixture" in details["corpus.fixture"]
    assert statuses["ledger.file"] == "fail" and "--store-dir" in details["ledger.file"]
    _validator(aggregate, "--no-embedding-check", "--fixture", moved / "data" / "tiny.json", "--store-dir",
               moved / "data" / "store", "--json", report, cwd=elsewhere)
    assert {name: _statuses(report)[name] for name in LOCATED} == dict.fromkeys(LOCATED, "pass")


def test_the_validator_module_runs_from_another_directory(tmp_path: Path) -> None:
    result = _validator("--help", cwd=tmp_path)
    assert result.returncode == 0 and "--store-dir" in result.stdout
