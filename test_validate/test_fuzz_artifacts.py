"""Fuzz: any damage to an aggregate or to its rows (with the digest and count resealed, so the damage reaches the
checks behind them) is refused: NOT ELIGIBLE with a failed check (exit 1), never eligible, never a validator fault or
a traceback. The copies say they ran from a clean checkout, so the undamaged copy fails nothing (a control test
holds that), and every failure is the damage's. A damage that changes nothing is not drawn.

Some of what a receipt states cannot be re-established by anyone after the run: the validator attests it (the
catalog's attestations: machine, latency, history, ...) or it is the harness's own wording. ATTESTED lists those
parts with the reason; damage there is drawn by its own test, which asks only for a verdict without a fault. A part
of the receipt missing from ATTESTED is held to exit 1: a new receipt field the validator does not bind fails the
first test.
"""

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, event, given
from hypothesis import strategies as st

from fixtures.clean_checkout import mark_clean_checkout
from fixtures.fuzz import FUZZ, Path_, changed, encode, meaning, mutated, mutated_value
from harness.validator.cli import main

from .support import CleanRun, RunCopy

CASES = [("fts_only", "calibration"), ("hybrid", "heldout"), ("vector_only", "heldout")]
EVERY = "*"
STATED_RULE = "a rule the run states in words for the reader; the validator applies its own statement of it"
ATTESTED: dict[tuple[str, ...], str] = {
    ("receipt", "machine"): "the machine the run names is its own statement (attested: machine)",
    ("receipt", "dependencies"): "the versions the run recorded: the dependencies check requires them recorded; "
                                 "their values are the run's statement",
    ("receipt", "executable", "argv"): "the command line the run recorded",
    ("receipt", "executable", "python_version"): "the Python version the run recorded (the interpreter itself is "
                                                 "checked by digest: executable.interpreter)",
    ("receipt", "executable", "implementation"): "the Python implementation the run recorded",
    **{("receipt", "latency_measurement", field): "latency is measured by the run and attested; only the contention "
                                                  "verdict is recomputed, and a figure can move without moving it"
       for field in ("warmup_calls", "repeats_per_query", "statistic", "thread_policy", "usable_cores",
                     "load_average_before", "load_average_after", "timed_wall_seconds", "process_cpu_seconds",
                     "runqueue_wait_seconds", "rule")},
    ("receipt", "claim_boundary"): "the harness's words on what a claim supports and does not establish",
    ("receipt", "capabilities", EVERY, "reason"): "the harness's words on a capability it lacks",
    ("receipt", "capabilities", EVERY, "baseline_value"): "restates the frozen baseline; the configuration's own "
                                                          "switches are checked (config.frozen_baseline)",
    ("receipt", "ledger", "rule"): STATED_RULE,
    ("receipt", "store", "digest_rule"): STATED_RULE,
    ("receipt", "run", "request_id_rule"): STATED_RULE,
    ("receipt", "source", "harness", "rule"): STATED_RULE,
    ("receipt", "system", "source", "rule"): STATED_RULE,
    ("receipt", "split", "algorithm"): STATED_RULE,
    ("receipt", "retrieval", "latency_scope"): "what the latency covers, in words (attested with the latency)",
    ("receipt", "retrieval", "latency_timer"): "the timer the latency was taken with (attested with the latency)",
    ("receipt", "retrieval", "lexical"): "the tokenizer record as the run states it; the lexical replay reads the "
                                         "store's own record, bound by the lexical part's digest",
    **{("receipt", "system", field): "the system's identity is its own statement; its source files, configuration "
                                     "digest and, for a held-out run, its equality with the freeze are checked"
       for field in ("spec", "version", "engine", "declarations")},
    ("receipt", "system", "source", "root"): "where the system's source lies; the files under it are re-hashed when "
                                             "it is on this machine, and attested when it is not",
}


def attested(path: Path_) -> bool:
    return any(len(path) >= len(prefix) and all(p in (EVERY, k) for p, k in zip(prefix, path, strict=False))
               for prefix in ATTESTED)


def checked(path: Path_) -> bool:
    return not attested(path)


@pytest.fixture(scope="module")
def from_clean_checkout(clean_run: CleanRun, tmp_path_factory: pytest.TempPathFactory) -> Iterator[CleanRun]:
    """The clean run's output as a fresh clone would write it (the fixture and store stay the clean run's)."""
    out = tmp_path_factory.mktemp("fuzz-clean-checkout") / "out"
    shutil.copytree(clean_run.out, out)
    mark_clean_checkout(out)
    yield CleanRun(clean_run.root, clean_run.fixture_path, clean_run.store_dir, out)


def _copy(template: CleanRun, tmp_path: Path) -> RunCopy:
    return RunCopy.make(template, Path(tempfile.mkdtemp(dir=tmp_path)))


def _verdict(aggregate: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, set[str]]:
    """The validator's exit code (its embedding check off) and the checks that failed. The git-state checks count
    too: the copies say they ran from a clean checkout of HEAD."""
    capsys.readouterr()
    report = aggregate.parent / "report.json"
    code = main([str(aggregate), "--no-embedding-check", "--json", str(report)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "VALIDATOR ERROR" not in out, out + err
    if code == 2:  # not an aggregate at all: input to fix, named, and no verdict written
        assert "error: " in err and str(aggregate) in err and not report.exists(), out + err
        return code, {"input"}
    assert out.strip().splitlines()[-1].startswith(("ELIGIBLE", "NOT ELIGIBLE")), out
    checks: list[dict[str, Any]] = json.loads(report.read_bytes())["checks"]
    return code, {c["name"] for c in checks if c["status"] == "fail"}


def difference(before: Any, after: Any, path: Path_ = ()) -> str:
    """Where two JSON values first differ, for the failure message."""
    if isinstance(before, dict) and isinstance(after, dict) and before.keys() == after.keys():
        return next((difference(before[k], after[k], (*path, k)) for k in before if before[k] != after[k]), "")
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return next((difference(b, a, (*path, i)) for i, (b, a) in enumerate(zip(before, after, strict=True))
                     if b != a), "")
    return f"{'/'.join(map(str, path))}: {str(before)[:200]} -> {str(after)[:200]}"


def _refused(aggregate: Path, capsys: pytest.CaptureFixture[str], damage: str) -> None:
    code, failed = _verdict(aggregate, capsys)
    event(f"exit {code}")
    assert code in (1, 2) and failed, f"the damage was not refused (exit {code}): {damage}"
    for name in sorted(failed):
        event(f"failed {name}")


def test_the_undamaged_copies_fail_nothing(from_clean_checkout: CleanRun, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """The control: only the skipped embedding check stands between each case and ELIGIBLE (exit 7)."""
    copy = _copy(from_clean_checkout, tmp_path)
    for case in CASES:
        assert _verdict(copy.aggregate_path(*case), capsys) == (7, set())


@FUZZ
@given(data=st.data(), case=st.sampled_from(CASES))
def test_a_damaged_aggregate_is_refused(from_clean_checkout: CleanRun, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str], data: st.DataObject,
                                        case: tuple[str, str]) -> None:
    copy = _copy(from_clean_checkout, tmp_path)
    path = copy.aggregate_path(*case)
    original = path.read_bytes()
    damaged = data.draw(mutated(json.loads(original), checked))
    assume(changed(original, damaged))
    path.write_bytes(damaged)
    try:
        damage = difference(json.loads(original), json.loads(damaged))
    except ValueError:
        damage = "not JSON"
    _refused(path, capsys, damage)


@FUZZ
@given(data=st.data(), case=st.sampled_from(CASES))
def test_damage_to_what_is_attested_ends_in_a_verdict(from_clean_checkout: CleanRun, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str], data: st.DataObject,
                                                      case: tuple[str, str]) -> None:
    copy = _copy(from_clean_checkout, tmp_path)
    path = copy.aggregate_path(*case)
    path.write_bytes(encode(data.draw(mutated_value(json.loads(path.read_bytes()), attested))))
    code, _ = _verdict(path, capsys)
    event(f"exit {code}")
    assert code in (1, 7)


@FUZZ
@given(data=st.data(), case=st.sampled_from(CASES), how=st.sampled_from(["one-row", "one-row", "drop", "all"]))
def test_damaged_rows_with_digest_and_count_resealed_are_refused(from_clean_checkout: CleanRun, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str],
                                                                 data: st.DataObject, case: tuple[str, str],
                                                                 how: str) -> None:
    copy = _copy(from_clean_checkout, tmp_path)
    original = copy.rows(*case)
    rows: list[Any] = json.loads(json.dumps(original))
    if how == "drop":
        rows = rows[: data.draw(st.integers(min_value=0, max_value=len(rows) - 1))]
    elif how == "all":
        damaged = data.draw(mutated_value({"rows": rows}))
        rows = damaged["rows"] if isinstance(damaged.get("rows"), list) else [damaged.get("rows", {})]
    else:
        index = data.draw(st.integers(min_value=0, max_value=len(rows) - 1))
        rows[index] = data.draw(mutated_value({"row": rows[index]})).get("row", {})
    assume(meaning(rows) != meaning(original))
    copy.write_rows(*case, rows, reseal_digest=True, reseal_count=True)
    _refused(copy.aggregate_path(*case), capsys, difference(original, rows))
