"""`python -m harness.validator AGG1 AGG2 ...`: many aggregates in one process (the model loaded once), one report
each, the worst exit code; a stored verdict is reused by the next call, and the line on stderr says which."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.validator.cli import main

from .support import RunCopy

pytestmark = [pytest.mark.real_model, pytest.mark.usefixtures("private_heldout_record")]
ROOT = Path(__file__).resolve().parent.parent


def test_several_aggregates_in_one_call(run_copy: RunCopy, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    aggregates = [run_copy.aggregate_path(mode, "heldout") for mode in ("fts_only", "vector_only", "hybrid")]
    reports = tmp_path / "reports"
    reports.mkdir()
    command = [sys.executable, "-m", "harness.validator", *map(str, aggregates), "--json", str(reports)]
    first = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900, check=False)
    dirty = json.loads(aggregates[0].read_bytes())["receipt"]["source"]["git"].get("dirty") is not False
    assert first.returncode == (1 if dirty else 0), first.stdout[-2000:] + first.stderr[-2000:]  # source.clean
    assert [line for line in first.stdout.splitlines() if line.startswith("== ")] == [f"== {a}" for a in aggregates]
    assert sum(line.startswith(("ELIGIBLE", "NOT ELIGIBLE")) for line in first.stdout.splitlines()) == 3
    assert first.stderr.count(": validated (no stored verdict); verdict stored in") == 3, first.stderr
    written = sorted(p.name for p in reports.iterdir())
    assert written == sorted(a.name.replace(".aggregate.json", ".validation.json") for a in aggregates)
    assert json.loads((reports / written[0]).read_text(encoding="utf-8"))["subject"] in map(str, aggregates)
    # the next calls in this process: the process was the subject of the first one only
    assert main(command[3:]) == first.returncode
    again = capsys.readouterr()
    assert again.err.count("reused the verdict stored in") == 3, again.err
    assert "STORED       the verdict of" in again.out
    main([*command[3:], "--revalidate"])
    assert capsys.readouterr().err.count("validated (validated again on request)") == 3


def test_rows_follow_their_aggregate(run_copy: RunCopy, capsys: pytest.CaptureFixture[str]) -> None:
    rows = run_copy.rows_path("fts_only", "calibration")
    with pytest.raises(SystemExit) as leading:
        main([str(rows)])
    assert leading.value.code == 2
    assert "is a rows file (.jsonl) with no aggregate before it" in capsys.readouterr().err
    aggregate = run_copy.aggregate_path("fts_only", "calibration")
    with pytest.raises(SystemExit) as into_a_file:
        main([str(aggregate), str(aggregate), "--json", str(rows)])
    assert into_a_file.value.code == 2
    assert "with several aggregates, name an existing directory" in capsys.readouterr().err
    dirty = json.loads(aggregate.read_bytes())["receipt"]["source"]["git"].get("dirty") is not False
    # not eligible without re-embedding: not verified (7), or failed (1) where the run's tree was dirty
    assert main([str(aggregate), str(rows), "--no-embedding-check"]) == (1 if dirty else 7)
    shown = capsys.readouterr().out
    assert "NOT VERIFIED embeddings.model" in shown and "== " not in shown
