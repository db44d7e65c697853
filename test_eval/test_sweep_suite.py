"""The sweep from pytest, as a user types it: `pytest -m sweep --scifact-sweep=GRID` evaluates the grid with the
command's code into the session's store and output directories, prints the table and the next step; `pytest -m
calibration --scifact-config=FILE` then runs the chosen configuration (the suite's validation passing), and the freeze
counts every configuration tried. The default selection leaves the sweep out."""

import json
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

from fixtures.archives import TINY_CONTRACT_PATH, tiny_archive
from fixtures.cli import ROOT, Uncaptured, child_env, run_tiny_cli
from harness.evaluation.history.ledger import LEDGER

GRID = {"parameters": {"lexical.b": [0.5, 0.75], "rrf_k": [30, 60]}}


def _pytest(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    common = ["-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:randomly",
              f"--scifact-contract={TINY_CONTRACT_PATH}", f"--scifact-archive={tiny_archive(tmp_path / 'tiny.zip')}",
              f"--scifact-work-dir={tmp_path / 'work'}", "--scifact-no-progress"]
    return subprocess.run([sys.executable, "-m", "pytest", *common, *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, env=child_env())


def test_the_suite_sweeps_then_calibrates_the_chosen_configuration(tmp_path: Path) -> None:
    (tmp_path / "grid.json").write_text(json.dumps(GRID), encoding="utf-8")
    swept = _pytest(tmp_path, "-m", "sweep", f"--scifact-sweep={tmp_path / 'grid.json'}")
    assert swept.returncode == 0, swept.stdout[-3000:] + swept.stderr[-2000:]
    assert "configurations by nDCG@10 in hybrid:" in swept.stdout and "--scifact-config=" in swept.stdout
    store, out = tmp_path / "work" / "store-tiny-test", tmp_path / "work" / "results-tiny-test"
    with closing(sqlite3.connect(store / LEDGER)) as connection:
        events = [json.loads(text) for (text,) in connection.execute("SELECT event FROM history ORDER BY position")]
    assert [e["event"] for e in events] == ["sweep-configuration"] * 12
    chosen = out / "tiny-test-sweep-configurations" / "configuration-04.json"
    assert json.loads(chosen.read_text()) == {"lexical": {"b": 0.75}, "rrf_k": 60}
    # (the suite's fts_only test needs ten lexical results per query, which the ten-document corpus has not)
    calibrated = _pytest(tmp_path, "-m", "calibration", "-k", "not fts_only", f"--scifact-config={chosen}")
    assert calibrated.returncode == 0, calibrated.stdout[-3000:] + calibrated.stderr[-2000:]
    assert f"--config {chosen}" in calibrated.stdout  # the freeze it prints next names the configuration
    corpus = tmp_path / "work" / "tiny-test-corpus.json"
    frozen = run_tiny_cli(["freeze", "--corpus", str(corpus), "--store-dir", str(store), "--output-dir", str(out),
                           "--config", str(chosen), "--allow-dirty", "--mode", "hybrid"], Uncaptured())
    assert frozen.code == 0
    block = json.loads((out / "freeze.json").read_text())["calibration_trials"]
    # lexical.b 0.75 and rrf_k 60 are the defaults: the chosen configuration is the built-in default, counted once
    assert (block["configurations"], block["sweep_events"], block["calibration_runs"]) == (4, 12, 2)


def test_a_bad_configuration_file_ends_the_session_before_any_work(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"rrf_k": 0}), encoding="utf-8")
    refused = _pytest(tmp_path, "-m", "calibration", f"--scifact-config={tmp_path / 'config.json'}")
    assert refused.returncode == 4, refused.stdout[-2000:] + refused.stderr[-2000:]  # pytest's usage error
    assert "gives rrf_k the value 0: rrf_k takes an integer >= 1" in refused.stderr
    assert not (tmp_path / "work").exists()
