"""The two declarable fusions (harness/systems/fusion.py) on hand-computed values: min-max and z-score normalisation
over each lane's candidates, the floor a document missing from a lane takes, the degenerate lanes (no candidate,
one, all scores equal), the weight at its ends, the tie rule; `fuse` as a system calls it; the validator's own
fusion code (harness/validator/retrieval/fusion.py) agreeing bit for bit on random lanes; a bad declaration named by
its field."""

import math
import random
from typing import Any

import pytest

from harness.evaluation.receipts.identity_check import SystemDeclarationError, check_identity
from harness.systems.declarations import declarations_problem, fusion_problem
from harness.systems.fusion import LaneStatistics, fuse_lanes, fused_score, lane_statistics, normalised
from harness.systems.plugin import Ranking, Result, fuse
from harness.systems.protocol import SystemIdentity
from harness.validator.retrieval import fusion as own

MINMAX = {"method": "convex", "weight": 0.25, "normalisation": "min-max", "candidate_depth": 3}
ZSCORE = {**MINMAX, "normalisation": "z-score"}
RRF = {"method": "rrf", "k": 30, "candidate_depth": 3}


def test_lane_statistics_are_those_of_the_candidates_in_float64() -> None:
    assert lane_statistics([4.0, 2.0, 0.0]) == LaneStatistics(3, 0.0, 4.0, 2.0, math.sqrt(8 / 3))
    assert lane_statistics([]) == LaneStatistics(0, None, None, None, None)
    assert lane_statistics([0.5]) == LaneStatistics(1, 0.5, 0.5, 0.5, 0.0)


@pytest.mark.parametrize(("score", "normalisation", "expected"), [
    (4.0, "min-max", 1.0), (3.0, "min-max", 0.75), (0.0, "min-max", 0.0), (None, "min-max", 0.0),
    (4.0, "z-score", 2.0 / math.sqrt(8 / 3)), (0.0, "z-score", -2.0 / math.sqrt(8 / 3)),
    (None, "z-score", -2.0 / math.sqrt(8 / 3)),  # missing: the lane's floor, its lowest candidate's value
])
def test_normalisation_and_the_floor_of_a_missing_document(score: float | None, normalisation: str,
                                                           expected: float) -> None:
    assert normalised(score, lane_statistics([4.0, 2.0, 0.0]), normalisation) == expected


@pytest.mark.parametrize("normalisation", ["min-max", "z-score"])
@pytest.mark.parametrize("scores", [[], [0.7], [0.3, 0.3, 0.3]])
def test_a_lane_without_spread_gives_every_document_zero(normalisation: str, scores: list[float]) -> None:
    stats = lane_statistics(scores)
    assert {normalised(s, stats, normalisation) for s in [*scores, None]} == {0.0}


def test_convex_fusion_by_hand_and_the_tie_rule() -> None:
    lexical = [("a", 10.0), ("b", 5.0), ("c", 0.0)]
    dense = [("c", 0.9), ("d", 0.5), ("a", 0.1)]
    fused = fuse_lanes(MINMAX, {"lexical": lexical, "dense": dense}, 10)
    # lexical min-max: a 1, b 0.5, c 0; dense: c 1, d 0.5, a 0; fused 0.75 * lexical + 0.25 * dense
    scores = {doc: score for doc, score, _ in fused.ranking}
    assert scores == {"a": 0.75, "b": 0.375, "c": 0.25, "d": 0.125}
    assert [doc for doc, _, _ in fused.ranking] == ["a", "b", "c", "d"]
    assert dict(fused.ranking[3][2]) == {"lexical": (None, None), "dense": (2, 0.5)}
    tied = fuse_lanes({**MINMAX, "weight": 0.5}, {"lexical": [("z", 1.0), ("y", 0.0)],
                                                   "dense": [("y", 1.0), ("z", 0.0)]}, 10)
    assert [(doc, score) for doc, score, _ in tied.ranking] == [("y", 0.5), ("z", 0.5)]  # equal: doc id ascending


def test_the_weight_at_its_ends_is_one_lane_and_the_depth_cuts_each_lane() -> None:
    lanes = {"lexical": [("a", 3.0), ("b", 2.0), ("c", 1.0), ("e", 0.5)], "dense": [("c", 0.9), ("b", 0.2)]}
    only_dense = fuse_lanes({**MINMAX, "weight": 1}, lanes, 10)
    assert [doc for doc, _, _ in only_dense.ranking][:1] == ["c"]
    only_lexical = fuse_lanes({**MINMAX, "weight": 0}, lanes, 10)
    assert [doc for doc, _, _ in only_lexical.ranking] == ["a", "b", "c"]  # depth 3: e is no candidate
    assert only_lexical.statistics["lexical"] == lane_statistics([3.0, 2.0, 1.0])


def test_rrf_fusion_reads_its_declared_k() -> None:
    assert fused_score(RRF, {"lexical": (1, 9.0), "dense": (2, 0.5)}) == 1 / 31 + 1 / 32
    assert fused_score({**RRF, "k": 60}, {"lexical": (None, None), "dense": (1, 0.5)}) == 1 / 61


@pytest.mark.parametrize("fusion", [MINMAX, ZSCORE, RRF, {**ZSCORE, "weight": 1.0}, {**MINMAX, "weight": 0}])
def test_the_validators_own_fusion_agrees_bit_for_bit(fusion: dict[str, Any]) -> None:
    generator = random.Random(20)
    for _ in range(200):
        docs = [f"d{i:02d}" for i in range(12)]
        lanes = {lane: sorted(((doc, generator.choice([0.0, 1.0, generator.uniform(-3, 3)]))
                               for doc in generator.sample(docs, generator.randint(0, 6))), key=lambda p: -p[1])
                 for lane in ("lexical", "dense")}
        fused = fuse_lanes({**fusion, "candidate_depth": 4}, lanes, 10)
        statistics = {lane: own.statistics_of([s for _, s in lanes[lane][:4]]) for lane in lanes}
        assert statistics == {lane: stats.record() for lane, stats in fused.statistics.items()}
        for _, score, evidence in fused.ranking:
            if fusion["method"] == "rrf":
                assert own.rrf({lane: rank for lane, (rank, _) in evidence.items()}, 30) == score
            else:
                scores = {lane: value for lane, (_, value) in evidence.items()}
                assert own.convex(scores, statistics, float(fusion["weight"]), str(fusion["normalisation"])) == score


def test_fuse_returns_a_ranking_with_statistics_and_refuses_what_it_cannot_fuse() -> None:
    ranking = fuse(MINMAX, [("a", 2.0), ("b", 1.0)], [("b", 0.8)], 1)
    assert isinstance(ranking, Ranking) and ranking == [Result("a", 0.75, {"lexical": (1, 2.0),
                                                                          "dense": (None, None)})]
    assert ranking.statistics == {"lexical": lane_statistics([2.0, 1.0]), "dense": lane_statistics([0.8])}
    with pytest.raises(ValueError, match=r"declarations\.fusion: 'alpha' was unexpected; convex takes weight"):
        fuse({**MINMAX, "alpha": 1}, [], [], 10)
    with pytest.raises(ValueError, match="the dense lane is not best first"):
        fuse(MINMAX, [], [("a", 0.1), ("b", 0.2)], 10)


@pytest.mark.parametrize(("fusion", "said"), [
    ({**MINMAX, "alpha": 0.5}, "declarations.fusion: 'alpha' was unexpected; convex takes weight, normalisation, "
                               "candidate_depth"),
    ({**RRF, "weight": 0.5}, "declarations.fusion: 'weight' was unexpected; rrf takes k, candidate_depth (and "
                             "optionally score_dtype)"),
    ({"method": "convex", "weight": 0.5, "candidate_depth": 9}, "declarations.fusion: convex needs 'normalisation', "
                                                                "'min-max' or 'z-score'"),
    ({**MINMAX, "weight": 1.5}, "declarations.fusion.weight: 1.5 is not a number from 0 to 1 (the dense lane's"),
    ({**MINMAX, "normalisation": "l2"}, "declarations.fusion.normalisation: 'l2' is not 'min-max' or 'z-score'"),
    ({**RRF, "k": "60"}, "declarations.fusion.k: '60' is not an integer of at least 1"),
    ({"method": "linear"}, "declarations.fusion.method: 'linear' is not a fusion the harness knows; 'rrf' takes k"),
])
def test_a_bad_fusion_declaration_is_named_by_its_field(fusion: dict[str, object], said: str) -> None:
    problem = fusion_problem(fusion)
    assert problem is not None and problem.startswith(said), problem
    identity = SystemIdentity(name="mine", spec="mine:SYSTEM", version="1", package=None, configuration={},
                              configuration_sha256="sha256:" + "0" * 64, source={},
                              engine={"name": "e", "version": "1"}, declarations={"fusion": fusion})
    with pytest.raises(SystemDeclarationError) as raised:
        check_identity(identity)
    assert str(raised.value).startswith(f"system 'mine' (--system 'mine:SYSTEM') declares what the harness cannot "
                                        f"read: {said}"), raised.value
    assert fusion_problem(MINMAX) is fusion_problem(RRF) is declarations_problem({"fusion": ZSCORE}) is None
    assert declarations_problem({"fusoin": RRF}) == ("declarations: 'fusoin' was unexpected; a system declares dense, "
                                                     "lexical, identical_vectors_share_a_score, depth_ranking, fusion")
