"""The benchmark suite's ratios: a benchmark against its same-run baseline, and against a target."""

from types import SimpleNamespace
from typing import Any

import pytest

from fixtures import bench_ratios


@pytest.fixture(autouse=True)
def fresh_session(monkeypatch: pytest.MonkeyPatch) -> None:
    """Records of their own: nothing from these tests reaches the session's ratio section."""
    monkeypatch.setattr(bench_ratios, "_MEDIANS", {})
    monkeypatch.setattr(bench_ratios, "_LINES", [])


def _bench(name: str, median: float) -> Any:
    return SimpleNamespace(name=name, stats=SimpleNamespace(stats=SimpleNamespace(median=median)), extra_info={})


def test_a_ratio_against_the_baseline_and_a_target_is_recorded() -> None:
    baseline = _bench("test_one_at_a_time", 14.0)
    bench_ratios.record(baseline, per=350, unit="text")
    batched = _bench("test_batched", 10.0)
    bench_ratios.record(batched, baseline="test_one_at_a_time", per=350, unit="text", target_seconds=20.0)
    info = batched.extra_info
    assert info["speedup_vs_baseline"] == pytest.approx(1.4) and info["baseline"] == "test_one_at_a_time"
    assert info["texts_per_second"] == pytest.approx(35.0) and info["fraction_of_target"] == pytest.approx(0.5)
    assert baseline.extra_info["texts_per_second"] == pytest.approx(25.0)


def test_a_baseline_that_has_not_run_is_an_error() -> None:
    with pytest.raises(AssertionError, match="has not run"):
        bench_ratios.record(_bench("test_alone", 1.0), baseline="test_never_ran")


def test_a_ratio_compares_per_item_when_the_baseline_handled_another_number() -> None:
    bench_ratios.record(_bench("test_one_aggregate", 1.2), per=1, unit="aggregate")
    three = _bench("test_three_aggregates", 3.0)
    bench_ratios.record(three, baseline="test_one_aggregate", per=3, unit="aggregate")
    assert three.extra_info["speedup_vs_baseline"] == pytest.approx(1.2)  # 1.0 s per aggregate against 1.2 s
