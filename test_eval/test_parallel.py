"""`pytest -n auto` gives the same artifacts as a serial run, latency and timestamps aside."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from harness.evaluation.receipts.locations import LOCATIONS_NAME, LOCK_NAME
from harness.fixture.corpus_fixture import CorpusFixture

ROOT = Path(__file__).resolve().parent.parent
PROBE = "fixtures/xdist_probe/test_probe_eval.py"


def _pytest(work: Path, corpus: CorpusFixture, *extra: str) -> None:
    env = {**os.environ, "PROBE_FIXTURE": str(corpus.path), "PROBE_STORE": str(work / "store"),
           "PROBE_OUTPUT": str(work / "out"), "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-m", "pytest", PROBE, "-q", "-p", "no:cacheprovider", *extra],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "6 passed" in result.stdout, result.stdout


def _normalized(path: Path) -> Any:
    """Drop what legitimately differs between two runs: latency, wall-clock times, how pytest was started, the
    run's place in the ledger's history."""
    if path.suffix == ".jsonl":
        rows = [json.loads(line) for line in path.read_bytes().splitlines()]
        for row in rows:
            row.pop("latency_ms")
        return rows
    if path.name == LOCATIONS_NAME:  # the same places: both runs wrote into the same work directory
        return json.loads(path.read_bytes())
    aggregate = json.loads(path.read_bytes())
    aggregate["metrics"].pop("latency_ms")
    aggregate.pop("per_query_sha256")  # the rows hold latencies
    receipt = aggregate["receipt"]
    receipt["run"].pop("started_at")
    receipt["run"].pop("finished_at")
    receipt["ledger"].pop("run_started")  # its position follows the workers' order; its digest, the times
    receipt["executable"].pop("argv")
    receipt["machine"].pop("xdist_worker")
    receipt["machine"].pop("xdist_workers")
    receipt.pop("latency_measurement")  # load, CPU time and the verdict on them are the moment's, like latency
    return aggregate


def _differences(a: Any, b: Any, path: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for key in sorted(set(a) | set(b), key=str)
                for d in _differences(a.get(key), b.get(key), f"{path}/{key}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in _differences(x, y, f"{path}/{i}")]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


def test_serial_and_xdist_runs_write_the_same_artifacts(tiny_corpus: CorpusFixture, tmp_path: Path) -> None:
    work = tmp_path / "work"
    _pytest(work, tiny_corpus, "-p", "no:xdist")
    shutil.move(work, tmp_path / "serial")
    _pytest(work, tiny_corpus, "-n", "2")
    serial = sorted(p.name for p in (tmp_path / "serial" / "out").iterdir() if p.name != LOCK_NAME)
    parallel = sorted(p.name for p in (work / "out").iterdir() if p.name != LOCK_NAME)
    assert serial == parallel and len(serial) == 13 and LOCATIONS_NAME in serial  # 12 artifacts and the local hint
    for name in serial:
        differences = _differences(_normalized(tmp_path / "serial" / "out" / name), _normalized(work / "out" / name))
        assert not differences, (name, differences)
    # The store itself is byte-identical too (the ledger and SQLite's shared-memory file aside).
    for part in ("facts.sqlite3", "mapping.json", "dense.f32", "store.json", *(
            f"lexical/{p.name}" for p in sorted((work / "store" / "lexical").iterdir()))):
        assert (tmp_path / "serial" / "store" / part).read_bytes() == (work / "store" / part).read_bytes(), part
