"""Latency that says how it was measured: warm-up, repeats kept as their median, and contention in words.

The busy case is made unmistakable: CPU-bound processes, more than twice the usable cores, spin beside a
run whose every search call burns 20 ms of CPU time, so its threads spend most of the timed region waiting
for a CPU whatever else the machine is doing. Whether a run on a shared machine is quiet cannot be forced,
so the quiet side of the rule is held by the rule itself on quiet figures, and every real run's verdict
must follow from its own recorded figures. A machine that cannot report the load average or the run-queue
wait is not quiet by default: its verdict is "contention unknown", in the receipt, the summary, CLAIMS.md and
the validator's report alike.
"""

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from harness.cli.summary import result_line
from harness.corpus.contract import Contract
from harness.evaluation.measures import contention
from harness.evaluation.runner import run_mode
from harness.fixture.corpus_fixture import CorpusFixture
from harness.publish.text.latency_notes import latency_lines
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.store.store import Store, build_store
from harness.systems.builtin.system import BuiltinSystem
from harness.systems.protocol import SearchOutcome
from harness.validator.core.report import PASS, Report
from harness.validator.pipeline import validate
from harness.validator.rows import check_latency

QUIET: dict[str, Any] = {"wall_seconds": 1.0, "cpu_seconds": 0.99, "wait_seconds": 0.01, "load_before": [1.0, 0.8, 0.5],
         "load_after": [1.1, 0.8, 0.5], "cores": 2}


class Burning(BuiltinSystem):
    """The built-in system, with 20 ms of CPU work added to every search call."""

    calls = 0

    def search(self, mode: str, text: str, vector: NDArray[np.float32] | None, top_k: int) -> SearchOutcome:
        Burning.calls += 1
        until = time.thread_time() + 0.020
        while time.thread_time() < until:
            pass
        return super().search(mode, text, vector, top_k)


@pytest.fixture
def store(tiny_corpus: CorpusFixture, tiny: Contract, store_dir: Path) -> Store:
    return build_store(store_dir, tiny_corpus, tiny.namespace, SearchConfig().lexical)[0]


@pytest.fixture
def spinners() -> Iterator[list[subprocess.Popen[bytes]]]:
    count = 2 * contention.usable_cores() + 1
    processes = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        time.sleep(0.5)  # every spinner running before the timed region starts
        assert all(process.poll() is None for process in processes)
        yield processes
    finally:
        for process in processes:
            process.kill()
        for process in processes:
            process.wait()


def _run(system: BuiltinSystem, tiny_corpus: CorpusFixture, tiny: Contract, output: Path) -> dict[str, Any]:
    run = run_mode(mode="hybrid", split="heldout", fixture=tiny_corpus, contract=tiny, system=system,
                   top_k=SearchConfig().top_k, output_dir=output, replace=False, argv=["test"])
    aggregate: dict[str, Any] = json.loads(run.aggregate_path.read_bytes())
    return aggregate


def _follows_its_figures(measured: dict[str, Any]) -> bool:
    found = contention.reasons(
        wall_seconds=measured["timed_wall_seconds"], cpu_seconds=measured["process_cpu_seconds"],
        wait_seconds=measured["runqueue_wait_seconds"], load_before=measured["load_average_before"],
        load_after=measured["load_average_after"], cores=measured["usable_cores"])
    return (measured["contended"], measured["contention"]) == contention.verdict(found, measured)


def test_a_run_beside_cpu_bound_processes_says_it_was_contended(
        spinners: list[subprocess.Popen[bytes]], tiny_corpus: CorpusFixture, tiny: Contract, store: Store,
        tmp_path: Path) -> None:
    aggregate = _run(Burning(store, SearchConfig()), tiny_corpus, tiny, tmp_path / "out")
    measured = aggregate["receipt"]["latency_measurement"]
    assert measured["timed_wall_seconds"] > 0.4  # 4 queries x 5 calls x 20 ms of CPU, at least
    assert measured["contended"] is True, measured
    assert measured["contention"].startswith("latency measured under contention: ")
    assert _follows_its_figures(measured)
    line = result_line(aggregate, tmp_path / "out" / "x.aggregate.json", "ELIGIBLE")
    assert "latency measured under contention" in line
    assert any("latency measured under contention" in text for text in latency_lines([aggregate]))
    report = Report("test")
    check_latency.check_latency(aggregate["receipt"], report)
    assert not report.failed
    assert "latency measured under contention" in report.attestations[0].detail


def test_each_query_is_timed_several_times_after_a_warm_up(tiny_corpus: CorpusFixture, tiny: Contract,
                                                            store: Store, tmp_path: Path) -> None:
    Burning.calls = 0
    aggregate = _run(Burning(store, SearchConfig()), tiny_corpus, tiny, tmp_path / "out")
    measured = aggregate["receipt"]["latency_measurement"]
    rows = aggregate["row_count"]
    assert measured["warmup_calls"] == rows == 4 and measured["repeats_per_query"] == contention.REPEATS
    # the depth-100 ranking is cut from the first timed call's lanes: no search beyond the warm-up and the timed ones
    assert Burning.calls == rows + rows * contention.REPEATS
    assert measured["process_cpu_seconds"] >= rows * contention.REPEATS * 0.020
    assert measured["thread_policy"]["pinned"] is False and measured["usable_cores"] >= 1
    assert _follows_its_figures(measured)  # quiet or not, the verdict is the rule applied to what was recorded


def test_the_rule_on_quiet_and_busy_figures() -> None:
    assert contention.reasons(**QUIET) == []
    assert contention.reasons(**{**QUIET, "wait_seconds": None}) == []  # a kernel without schedstat
    waited = contention.reasons(**{**QUIET, "wait_seconds": 0.5})
    assert waited == ["threads waited for a CPU 0.50 s per second of timed wall time"]
    assert contention.reasons(**{**QUIET, "cpu_seconds": 0.3, "wait_seconds": None}) == [
        "the process had a CPU 30% of the timed wall time"]
    assert contention.reasons(**{**QUIET, "load_after": [7.5, 3.0, 1.0]}) == [
        "1-minute load average 7.50 on 2 usable cores"]


def _measured(figures: dict[str, Any]) -> dict[str, Any]:
    return {"timed_wall_seconds": figures["wall_seconds"], "process_cpu_seconds": figures["cpu_seconds"],
            "runqueue_wait_seconds": figures["wait_seconds"], "load_average_before": figures["load_before"],
            "load_average_after": figures["load_after"], "usable_cores": figures["cores"]}


@pytest.mark.parametrize(("missing", "named"), [
    ({"wait_seconds": None}, ["run-queue wait"]),
    ({"load_before": None, "load_after": None}, ["load average before", "load average after"]),
    ({"load_after": None, "wait_seconds": None}, ["load average after", "run-queue wait"]),
])
def test_a_measurement_that_could_not_be_read_leaves_contention_unknown(missing: dict[str, Any],
                                                                       named: list[str]) -> None:
    figures = {**QUIET, **missing}
    measured = _measured(figures)
    contended, words = contention.verdict(contention.reasons(**figures), measured)
    assert contended is None and words is not None and words.startswith("contention unknown: "), words
    assert all(name in words for name in named) and "no contention" not in words, words
    # a rule that fires on what was recorded still says contended: unknown is only the absence of evidence
    busy = {**figures, "cpu_seconds": 0.1}
    assert contention.verdict(contention.reasons(**busy), _measured(busy))[0] is True
    assert check_latency.verdict(measured) == ("contention unknown", named)


def test_a_run_on_a_machine_without_load_or_run_queue_figures_says_contention_unknown(tmp_path: Path) -> None:
    """The receipt's account, from snapshots that could not read either measurement, then every place that shows
    the verdict: the summary line, CLAIMS.md's latency lines and the validator (which refuses 'no contention')."""
    before, after = contention.Snapshot(0.0, 0.0, None, None), contention.Snapshot(1.0, 0.99, None, None)
    measured = contention.measurement(before, after, warmup_calls=10, repeats=5, blas=[])
    assert measured["contended"] is None and measured["contention"].startswith("contention unknown: "), measured
    assert all(name in measured["contention"] for name in contention.MEASUREMENTS.values()), measured
    receipt: dict[str, Any] = {"latency_measurement": measured, "retrieval": {"latency_scope": "test", "top_k": 10}}
    aggregate: dict[str, Any] = {"mode": "hybrid", "split": "heldout", "receipt": receipt,
                 "metrics": {k: 0.5 for k in ("ndcg_at_10", "recall_at_10", "mrr_at_10", "map_at_10", "success_at_1")}
                 | {"failures": 0, "latency_ms": {"p50": 1.0, "p95": 2.0}, "result_count_distribution": {"10": 1}}}
    assert "contention unknown" in result_line(aggregate, tmp_path / "x.aggregate.json", "ELIGIBLE")
    claimed = " ".join(latency_lines([aggregate]))
    assert "contention unknown" in claimed and "no contention" not in claimed, claimed
    report = Report("test")
    check_latency.check_latency(receipt, report)
    assert not report.failed and "contention unknown" in report.attestations[0].detail, report.lines()
    for stated in ({"contended": False, "contention": None},  # unknown stated as quiet
                   {"contended": None, "contention": "contention unknown: something"}):  # the missing ones unnamed
        refused = Report("test")
        check_latency.check_latency({**receipt, "latency_measurement": {**measured, **stated}}, refused)
        assert [c.name for c in refused.failed] == ["latency.contention"], refused.lines()


def test_a_real_run_that_cannot_read_them_records_contention_unknown(tiny_corpus: CorpusFixture, tiny: Contract,
                                                                    store: Store, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(contention, "runqueue_wait_ns", lambda: None)
    monkeypatch.setattr(contention, "load_average", lambda: None)
    aggregate = _run(BuiltinSystem(store, SearchConfig()), tiny_corpus, tiny, tmp_path / "out")
    measured = aggregate["receipt"]["latency_measurement"]
    assert measured["contended"] is None or measured["contended"] is True, measured  # True only if a CPU rule fired
    assert _follows_its_figures(measured)
    report = validate(tmp_path / "out" / "tiny-test-hybrid-heldout.aggregate.json", embeddings=False)
    assert {c.name: c.status for c in report.checks if c.name in ("aggregate.schema", "latency.contention")} == {
        "aggregate.schema": PASS, "latency.contention": PASS}, report.lines()


def test_the_validator_restates_the_harness_rule() -> None:
    assert (check_latency.WAIT_FRACTION_CEILING, check_latency.CPU_RATIO_FLOOR, check_latency.LOAD_MARGIN) == (
        contention.WAIT_FRACTION_CEILING, contention.CPU_RATIO_FLOOR, contention.LOAD_MARGIN)
    assert check_latency.CONTENDED == contention.CONTENDED
    assert (check_latency.UNKNOWN, check_latency.MEASUREMENTS) == (contention.UNKNOWN, contention.MEASUREMENTS)
    for figures in (QUIET, {**QUIET, "wait_seconds": 0.5}, {**QUIET, "cpu_seconds": 0.1},
                    {**QUIET, "load_before": [9.0, 1.0, 1.0]}, {**QUIET, "wait_seconds": None},
                    {**QUIET, "load_before": None, "cpu_seconds": 0.1}):
        measured = _measured(figures)
        assert bool(check_latency.contention_reasons(measured)) == bool(contention.reasons(**figures))
        contended, _ = contention.verdict(contention.reasons(**figures), measured)
        assert check_latency.verdict(measured)[0] == {True: "contended", None: "contention unknown",
                                                      False: "not contended"}[contended]
