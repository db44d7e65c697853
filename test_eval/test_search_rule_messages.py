"""Every rule of `search` (harness/systems/plugin/rules.py), each broken alone: whether it fails the query (a row
that records the failure) or stops the run, and a message naming the mode, the offending key or doc id, and the
fix. An answer that is not a list of Result is refused in the system's worker process, tested through a real one."""

import json
import math
from pathlib import Path
from typing import Any

import pytest

from harness.corpus.contract import Contract
from harness.evaluation.run_split import Evaluation, run_split
from harness.fixture.corpus_fixture import CorpusFixture
from harness.systems.plugin import LaneStatistics, Ranking, Result
from harness.systems.plugin.rules import check_answer
from harness.systems.protocol import SearchFailed, SearchStopped

POSITION = {f"d{i:02d}": i for i in range(1, 11)}
FUSION = {"fusion": {"method": "rrf", "k": 60, "candidate_depth": 100}}
CONVEX = {"fusion": {"method": "convex", "weight": 0.5, "normalisation": "z-score", "candidate_depth": 100}}
LANES = {"lexical": (1, 3.0), "dense": (2, 0.5)}
STATISTICS = {"lexical": LaneStatistics(4, 1.0, 3.0, 2.0, 0.5), "dense": LaneStatistics(3, 0.25, 0.5, 0.4, 0.1)}


def _hybrid(*pairs: tuple[str, float], lanes: dict[str, Any] | None = None) -> list[Result]:
    return [Result(doc, score, LANES if lanes is None else lanes) for doc, score in pairs]


@pytest.mark.parametrize(("mode", "results", "declarations", "stops", "said"), [
    ("hybrid", _hybrid(("d01", 0.03), lanes={"bm25": (1, 3.0), "dense": (2, 0.5)}), FUSION, True,
     "search('hybrid') returned Result.lanes key 'bm25' for doc 'd01' (rank 1): a hybrid's lane keys are 'lexical' "
     "and 'dense' only"),
    ("vector_only", [Result("d01", 0.9, {"dense": (1, 0.9)})], {}, True,
     "search('vector_only') returned Result.lanes {'dense': (1, 0.9)} for doc 'd01' (rank 1): lanes are a hybrid's "
     "evidence"),
    ("hybrid", _hybrid(("d01", 0.03)), {}, True,
     "search('hybrid') needs the system to declare its fusion, and it declares None: declare it as "
     "declarations = {'fusion': {'method': 'rrf', 'k': 60, 'candidate_depth': 100}} or {'fusion': {'method': "
     "'convex', 'weight': 0.5, 'normalisation': 'min-max', 'candidate_depth': 100}}"),
    ("fts_only", [Result(f"d{i:02d}", 20.0 - i) for i in range(1, 11)] + [Result("d01", 1.0)], {}, False,
     "search('fts_only') returned 11 results for top_k 10: return at most top_k, best first"),
    ("fts_only", [Result("d01", 2.0), Result("x99", 1.0)], {}, False,
     "search('fts_only') returned doc id 'x99' (rank 2), which is not a document of the corpus: return the ids of "
     "Corpus.doc_ids"),
    ("vector_only", [Result("d03", 0.9), Result("d01", 0.8), Result("d03", 0.7)], {}, False,
     "search('vector_only') returned doc id 'd03' twice (ranks 1 and 3): a ranking holds each document once"),
    ("vector_only", [Result("d03", 0.9), Result("d01", math.nan)], {}, False,
     "search('vector_only') returned score nan for doc 'd01' (rank 2): a score is a finite number"),
    ("vector_only", [Result("d03", 0.5), Result("d01", 0.8)], {}, False,
     "search('vector_only') returned doc 'd03' (rank 1, score 0.5) before doc 'd01' (rank 2, score 0.8): results "
     "come best first, scores descending"),
    ("fts_only", [Result("d03", 2.0), Result("d01", 2.0)], {}, False,
     "search('fts_only') returned doc 'd03' (rank 1, score 2.0) before doc 'd01' (rank 2, score 2.0): equal scores "
     "go by doc id ascending"),
    ("hybrid", _hybrid(("d01", 0.0)), FUSION, False,
     "search('hybrid') returned score 0.0 for doc 'd01' (rank 1): a hybrid's score is its fused reciprocal-rank "
     "score, greater than 0"),
    ("hybrid", _hybrid(("d01", 0.03), lanes={"lexical": (0, 3.0), "dense": (None, None)}), FUSION, False,
     "search('hybrid') returned Result.lanes['lexical'] for doc 'd01' (rank 1) that has rank 0: a lane's rank counts "
     "from 1"),
    ("hybrid", _hybrid(("d01", 0.03), lanes={"lexical": (1, None)}), FUSION, False,
     "search('hybrid') returned Result.lanes['lexical'] for doc 'd01' (rank 1) that has rank 1 and score None: both "
     "are given, or both are None"),
    ("hybrid", _hybrid(("d01", 0.03), lanes={"lexical": (101, 3.0), "dense": (None, None)}), FUSION, False,
     "search('hybrid') returned Result.lanes['lexical'] for doc 'd01' (rank 1) that has rank 101: a lane's rank counts "
     "from 1 in its own top candidate_depth (100)"),
    ("hybrid", _hybrid(("d01", -0.3)), CONVEX, True,
     "search('hybrid') declares a convex fusion and returned no statistics of its 'lexical' lane, which the "
     "normalisation used and the rows record: return harness.systems.plugin.fuse("),
    ("hybrid", Ranking(_hybrid(("d01", 0.3), lanes={"lexical": (1, 3.5), "dense": (None, None)}), STATISTICS), CONVEX,
     False, "search('hybrid') returned Result.lanes['lexical'] (1, 3.5) for doc 'd01' (rank 1) outside the lane's "
     "statistics"),
    ("hybrid", Ranking(_hybrid(("d01", 0.3)), {**STATISTICS, "dense": LaneStatistics(0, 0.1, None, None, None)}),
     CONVEX, False, "search('hybrid') returned statistics of the 'dense' lane that has LaneStatistics(candidates=0"),
    ("hybrid", _hybrid(("d01", 0.03)), {"fusion": {**CONVEX["fusion"], "alpha": 1}}, True,
     "search('hybrid') needs a fusion declaration the harness can read: declarations.fusion: 'alpha' was "
     "unexpected; convex takes weight, normalisation, candidate_depth"),
])
def test_each_broken_rule_is_named_with_its_fix(mode: str, results: list[Result], declarations: dict[str, Any],
                                                stops: bool, said: str) -> None:
    with pytest.raises(SearchStopped if stops else SearchFailed) as raised:
        check_answer(results, mode, 10, POSITION, declarations, 0.25)
    error = raised.value
    if isinstance(error, SearchStopped):
        assert error.cause.startswith(said), error.cause
    else:
        assert isinstance(error, SearchFailed) and error.error.startswith(said) and error.latency_ms == 0.25, error


@pytest.mark.parametrize(("statistics", "said"), [
    (LaneStatistics(3, 0.25, 0.5, 0.4, -0.5), "min at most max, std at least 0"),
    (LaneStatistics(3, 0.5, 0.25, 0.4, 0.1), "min at most max, std at least 0"),
    (LaneStatistics(101, 0.25, 0.5, 0.4, 0.1), "counts 101 candidates: from 0 to the candidate depth 100"),
    (LaneStatistics(3, 0.25, math.inf, 0.4, 0.1), "every statistic is a finite number"),
])
def test_ill_formed_lane_statistics_fail_the_query(statistics: LaneStatistics, said: str) -> None:
    answer = Ranking(_hybrid(("d01", 0.3), lanes={"lexical": (1, 3.0), "dense": (None, None)}),
                     {**STATISTICS, "dense": statistics})
    with pytest.raises(SearchFailed) as raised:
        check_answer(answer, "hybrid", 10, POSITION, CONVEX, 0.25)
    assert raised.value.error.startswith("search('hybrid') returned statistics of the 'dense' lane that ")
    assert said in raised.value.error, raised.value.error


def test_answers_that_keep_the_rules_pass() -> None:
    check_answer([Result("d02", 0.9), Result("d01", 0.5), Result("d03", 0.5)], "vector_only", 10, POSITION, {}, 0.1)
    check_answer([], "fts_only", 10, POSITION, {}, 0.1)  # no document matched: fewer than top_k is allowed
    check_answer(_hybrid(("d01", 0.032), ("d02", 0.016), lanes={"lexical": (None, None), "dense": (3, 0.2)}),
                 "hybrid", 10, POSITION, FUSION, 0.1)
    # a convex fusion's score may be zero or below (z-scores under the mean), with its lanes' statistics
    check_answer(Ranking(_hybrid(("d01", 0.0), ("d02", -0.7), lanes={"lexical": (2, 1.0), "dense": (3, 0.25)}),
                         STATISTICS), "hybrid", 10, POSITION, CONVEX, 0.1)


TUPLES = '''
from harness.systems.plugin import Result
from fixtures.plugins import Dense


class Tuples(Dense):
    """Answers (doc id, score) tuples instead of Result objects."""

    def search(self, mode, text, vector, top_k):
        return [(r.doc_id, r.score) for r in super().search(mode, text, vector, top_k)]


SYSTEM = Tuples()
'''


def test_an_answer_that_is_not_a_list_of_results_fails_its_queries(tiny_corpus: CorpusFixture, tiny: Contract,
                                                                    tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "tuples.py").write_text(TUPLES, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path / "plugins"))
    [run] = run_split(Evaluation(corpus=tiny_corpus.path, store_dir=tmp_path / "store", output_dir=tmp_path / "out",
                                 split="calibration", system="tuples:SYSTEM"), tiny)
    rows = [json.loads(line) for line in run.rows_path.read_text(encoding="utf-8").splitlines()]
    assert rows and all(row["failed_by"] == "system" for row in rows)
    assert rows[0]["error"].startswith("system 'dense-under-test': search('vector_only') returned tuple at rank 1, not "
                                       "a Result: return a list of harness.systems.plugin.Result(doc_id, score)")
    assert [f.failed_by for f in run.failures] == ["system"] * len(rows)
