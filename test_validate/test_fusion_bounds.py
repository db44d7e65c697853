"""rows.fusion's bounds on the clean run's hybrid rows, each forged alone: a lane rank one past the candidate depth, a
result's score that is not its fused score, a fused score just outside the float32 bound (and one inside it); and a
lane's recorded statistics against its replayed candidates, just outside and inside the replay's tolerance."""

import copy
from typing import Any

import pytest

from harness.validator.core.report import Report
from harness.validator.retrieval.fusion import statistics_difference, statistics_of
from harness.validator.rows.check_fusion import NAME, check_fusion

from .support import Row, RunCopy

Fusion = dict[str, Any]


def _hybrid(run_copy: RunCopy) -> tuple[list[Row], Fusion]:
    rows = run_copy.rows("hybrid", "calibration")
    fusion: Fusion = run_copy.aggregate("hybrid", "calibration")["receipt"]["system"]["declarations"]["fusion"]
    assert fusion["method"] == "rrf" and all(row["error"] is None for row in rows)
    return rows, fusion


def _verdict(rows: list[Row], fusion: Fusion) -> Any:
    report = Report("hybrid")
    check_fusion(rows, fusion, report)
    [check] = [c for c in report.checks if c.name == NAME]
    return check


def test_the_clean_rows_pass(run_copy: RunCopy) -> None:
    rows, fusion = _hybrid(run_copy)
    assert _verdict(rows, fusion).status == "pass"
    assert _verdict(rows, {**fusion, "score_dtype": "float32"}).status == "pass"


def test_a_lane_rank_past_the_candidate_depth_fails(run_copy: RunCopy) -> None:
    rows, fusion = _hybrid(run_copy)
    depth = int(fusion["candidate_depth"])
    forged = copy.deepcopy(rows)
    result = forged[0]["results"][-1]
    result["lanes"]["lexical"]["rank"] = depth + 1
    score = sum(1.0 / (fusion["k"] + result["lanes"][lane]["rank"]) for lane in ("lexical", "dense")
                if result["lanes"][lane]["rank"] is not None)
    result["lanes"]["fusion"]["fused_score"] = result["score"] = score  # the fused score agrees with the forged rank
    check = _verdict(forged, fusion)
    assert check.status == "fail" and "lanes.lexical.rank is not within the candidate depth" in check.detail, check
    assert check.found == depth + 1


def test_a_score_that_is_not_its_fused_score_fails(run_copy: RunCopy) -> None:
    rows, fusion = _hybrid(run_copy)
    forged = copy.deepcopy(rows)
    last = forged[0]["results"][-1]
    last["score"] = last["score"] / 2  # lower still, so the order holds
    check = _verdict(forged, fusion)
    assert check.status == "fail" and "score is not its lanes.fusion.fused_score" in check.detail, check.line()


@pytest.mark.parametrize(("relative", "passes"), [(2.0 ** -25, True), (2.0 ** -21, False)])
def test_a_float32_fused_score_is_held_within_two_ulps(relative: float, passes: bool, run_copy: RunCopy) -> None:
    """Declared summed in float32, a fused score may differ from the float64 recomputation by its rounding, two
    float32 ulps (2^-23 relative) at most; beyond that it is another fusion."""
    rows, fusion = _hybrid(run_copy)
    forged = copy.deepcopy(rows)
    first = forged[0]["results"][0]
    first["score"] = first["lanes"]["fusion"]["fused_score"] = first["score"] * (1.0 + relative)
    declared = {**fusion, "score_dtype": "float32"}
    assert (_verdict(forged, declared).status == "pass") is passes
    assert _verdict(forged, fusion).status == "fail"  # in float64 it is exact


@pytest.mark.parametrize(("tolerances", "agrees"), [(2.5, True), (3.5, False)])
def test_recorded_statistics_are_held_to_the_replay_within_three_tolerances(tolerances: float, agrees: bool) -> None:
    replayed = [4.25, 3.5, 2.0, 1.75, 0.5]
    tolerance = 1e-4
    for key in ("min", "max", "mean", "std"):
        recorded = statistics_of(replayed)
        recorded[key] += tolerances * tolerance
        found = statistics_difference(recorded, replayed, tolerance)
        assert (found is None) is agrees, (key, found)
    assert statistics_difference({**statistics_of(replayed), "candidates": 4}, replayed, tolerance) is not None
