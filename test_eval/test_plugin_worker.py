"""A system's worker process that crashes, hangs, writes into the harness's protocol or prints: each ends in an error
that names the system and what happened (or, for prints, in nothing at all), never in a wait; nothing is written,
and no worker process is left behind, after a failure, an interruption, or the harness's own death."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fixtures import plugins
from fixtures.interrupt import sigint_as_at_a_terminal
from harness.corpus.contract import Contract
from harness.evaluation.run_split import Evaluation, run_split
from harness.fixture.corpus_fixture import CorpusFixture
from harness.systems.plugin import client
from harness.systems.plugin.client import SystemProcessError, Timeouts
from harness.validator.pipeline import validate

ROOT = Path(__file__).resolve().parent.parent


def _calibrate(corpus: CorpusFixture, contract: Contract, root: Path, twist: str) -> None:
    run_split(Evaluation(corpus=corpus.path, store_dir=root / "store", output_dir=root / "out", split="calibration",
                         system=f"fixtures.plugins:{twist}"), contract)


def _nothing_left(root: Path) -> None:
    assert not list((root / "out").glob("*")) if (root / "out").exists() else True
    assert not plugins.still_present(root / "store")
    assert (root / "store" / plugins.PIDS).read_text().split()  # the processes did run, and are gone


@pytest.mark.parametrize(("twist", "message"), [
    ("Crashing", r"system 'fixtures.plugins:Crashing': its process ended during search\(\) \(exit code 7\): the "
                 r"system's code ended it"),
    ("Scribbling", r"system 'fixtures.plugins:Scribbling' answered search\(\) with bytes off the harness's protocol"),
])
def test_a_worker_that_crashes_or_writes_into_the_protocol_is_named(
        twist: str, message: str, tiny_corpus: CorpusFixture, tiny: Contract, tmp_path: Path) -> None:
    with pytest.raises(SystemProcessError, match=message) as raised:
        _calibrate(tiny_corpus, tiny, tmp_path, twist)
    assert raised.value.exit_code == 2  # the system's to fix, not a fault of the harness (5)
    _nothing_left(tmp_path)


def test_a_worker_that_hangs_is_stopped_at_its_deadline(tiny_corpus: CorpusFixture, tiny: Contract, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client, "TIMEOUTS", Timeouts(search=0.5))
    started = time.monotonic()
    with pytest.raises(SystemProcessError, match=r"'fixtures.plugins:Hanging' did not answer search\(\) within 0.5 s, "
                                                 r"so its process was stopped"):
        _calibrate(tiny_corpus, tiny, tmp_path, "Hanging")
    assert time.monotonic() - started < 60
    _nothing_left(tmp_path)


def test_an_exception_in_search_is_a_failed_row_and_the_run_goes_on(tiny_corpus: CorpusFixture, tiny: Contract,
                                                                    tmp_path: Path) -> None:
    failing = plugins.Failing.FAILS_ON
    [run] = run_split(Evaluation(corpus=tiny_corpus.path, store_dir=tmp_path / "store", output_dir=tmp_path / "out",
                                 split="calibration", system="fixtures.plugins:Failing"), tiny)
    rows = [json.loads(line) for line in run.rows_path.read_text(encoding="utf-8").splitlines()]
    texts = {q["query_id"]: q["text"] for q in tiny_corpus.data["queries"]}
    failed = [row for row in rows if row["error"] is not None]
    assert [texts[row["query_id"]] for row in failed] == [failing]
    assert failed[0]["error"] == (f"system 'dense-under-test': search('vector_only') raised ValueError: no answer "
                                  f"for {failing!r}") and failed[0]["ranked_doc_ids"] == []
    assert failed[0]["failed_by"] == "system" and run.failures[0].cause == failed[0]["error"].split(": ", 1)[1]
    assert failed[0]["latency_ms"] >= 0 and run.aggregate["metrics"]["failures"] == 1
    assert all(row["ranked_doc_ids"] for row in rows if row is not failed[0])


def test_what_a_system_prints_stays_off_the_protocol(tiny_corpus: CorpusFixture, tiny: Contract, tmp_path: Path,
                                                     capfd: pytest.CaptureFixture[str]) -> None:
    _calibrate(tiny_corpus, tiny, tmp_path, "Chatty")
    report = validate(tmp_path / "out" / "tiny-test-vector_only-calibration.aggregate.json")
    assert not [c.line() for c in report.failed if c.name not in {"source.git", "source.clean"}]
    printed = capfd.readouterr()
    assert "chatty: opening" in printed.err and "chatty: straight to descriptor 1" in printed.err
    assert "chatty" not in printed.out
    assert not plugins.still_present(tmp_path / "store")


def test_a_systems_standard_input_is_not_the_harnesss_request_stream(tiny_corpus: CorpusFixture, tiny: Contract,
                                                                     tmp_path: Path) -> None:
    """The protocol keeps the process's own stdin; what the system reads from its stdin is /dev/null."""
    _calibrate(tiny_corpus, tiny, tmp_path, "StdinReader")
    assert (tmp_path / "store" / plugins.STDIN).read_text() == os.devnull


def _cli_with_a_hanging_system(corpus: CorpusFixture, root: Path) -> tuple[subprocess.Popen[str], int]:
    """The command line, running a system that hangs in its search: the process, and its worker's pid."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "fixtures.tiny_cli", "run", "--corpus", str(corpus.path),
                                "--store-dir", str(root / "store"), "--output-dir", str(root / "out"), "--split",
                                "calibration", "--system", "fixtures.plugins:Hanging"], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=sigint_as_at_a_terminal)
    deadline = time.monotonic() + 120
    while not (root / "store" / plugins.SEARCHING).exists():
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.1)
    return process, int((root / "store" / plugins.SEARCHING).read_text())


def test_ctrl_c_stops_the_worker_with_the_harness(tiny_corpus: CorpusFixture, tmp_path: Path) -> None:
    process, worker = _cli_with_a_hanging_system(tiny_corpus, tmp_path)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130 and stderr.strip().splitlines()[-1].startswith("error: interrupted"), stderr
    assert not Path(f"/proc/{worker}").exists()
    assert not plugins.still_present(tmp_path / "store")


def _gone_or_defunct(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_a_worker_ends_when_the_harness_is_killed_outright(tiny_corpus: CorpusFixture, tmp_path: Path) -> None:
    process, worker = _cli_with_a_hanging_system(tiny_corpus, tmp_path)
    process.kill()  # no clean-up runs in the harness: the worker notices by itself
    process.communicate(timeout=60)
    deadline = time.monotonic() + 30
    while not _gone_or_defunct(worker):
        assert time.monotonic() < deadline, f"worker {worker} outlived the harness"
        time.sleep(0.1)
