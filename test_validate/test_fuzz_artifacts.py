"""Fuzz: any damage to an aggregate or to its rows (with the digest and count resealed, so the damage reaches the
checks behind them) ends in a verdict, exit 0, 1 or 3, never a validator fault or a traceback."""

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from fixtures.fuzz import FUZZ, mutated, mutated_value
from harness.validator.cli import main

from .support import CleanRun, RunCopy

CASES = [("fts_only", "calibration"), ("hybrid", "heldout"), ("vector_only", "heldout")]


def _validate(aggregate: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    code = main([str(aggregate), "--no-embedding-check"])
    out, err = capsys.readouterr()
    event(f"exit {code}")
    assert code in (0, 1, 3), out + err
    assert "Traceback" not in out + err and "VALIDATOR ERROR" not in out
    assert out.strip().splitlines()[-1].startswith(("ELIGIBLE", "NOT ELIGIBLE")), out


@FUZZ
@given(data=st.data(), case=st.sampled_from(CASES))
def test_a_damaged_aggregate(clean_run: CleanRun, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                             data: st.DataObject, case: tuple[str, str]) -> None:
    copy = RunCopy.make(clean_run, Path(tempfile.mkdtemp(dir=tmp_path)))
    path = copy.aggregate_path(*case)
    path.write_bytes(data.draw(mutated(json.loads(path.read_bytes()))))
    _validate(path, capsys)


@FUZZ
@given(data=st.data(), case=st.sampled_from(CASES))
def test_damaged_rows_with_digest_and_count_resealed(clean_run: CleanRun, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str], data: st.DataObject,
                                                     case: tuple[str, str]) -> None:
    copy = RunCopy.make(clean_run, Path(tempfile.mkdtemp(dir=tmp_path)))
    rows = copy.rows(*case)
    how = data.draw(st.sampled_from(["one-row", "one-row", "drop", "all"]))
    if how == "drop":
        rows = rows[: data.draw(st.integers(min_value=0, max_value=len(rows) - 1))]
    elif how == "all":
        rows = data.draw(mutated_value({"rows": rows}))["rows"] if rows else rows
    else:
        index = data.draw(st.integers(min_value=0, max_value=len(rows) - 1))
        rows[index] = data.draw(mutated_value({"row": rows[index]})).get("row", {})
    copy.write_rows(*case, rows if isinstance(rows, list) else [rows], reseal_digest=True, reseal_count=True)
    _validate(copy.aggregate_path(*case), capsys)
