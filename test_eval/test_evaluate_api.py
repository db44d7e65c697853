"""`harness.evaluate` and `harness.calibration`: both shapes of run, trec_eval's order of tied scores (pytrec_eval
gives the same numbers), the -c rule (every judged query counted, an unranked one as 0; a run's unjudged query not
counted), bad input named, `import harness` kept light; the calibration split loaded from the verified archive
(the real SciFact archive and a collection of one's own) and the held-out split refused."""

import json
import math
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import pytrec_eval

import harness
from fixtures import graded_collection as graded
from fixtures.archives import write_zip
from fixtures.bm25_run import bm25_run
from fixtures.cli import ROOT
from fixtures.graded_beir import write_collection
from fixtures.named_reference import reference, scored
from harness.corpus.contract import scifact_contract
from harness.corpus.dataset import load_dataset
from harness.corpus.declared import declare, pack_directory
from harness.corpus.split import select
from harness.errors import HarnessError, PayloadDigestMismatch, RefusedError
from harness.evaluation.measures.metrics import TREC_EVAL, Conventions, query_metrics
from harness.evaluation.measures.named import DEFAULT_MEASURES, DEFAULT_NAMES, MeasureNameError
from harness.evaluation.tuning.api import EvaluationInputError

NAMES = ["nDCG@10", "P@5", "R@100", "AP@10", "RR@10", "Success@1", "Judged@10", "P(rel=2)@5", "nDCG@100"]
TREC_MEANS = {"nDCG@10": "ndcg_cut_10", "P@5": "P_5", "R@100": "recall_100", "AP@10": "map_cut_10",
              "Success@1": "success_1", "nDCG@100": "ndcg_cut_100"}


def test_both_shapes_of_run_give_the_reference_numbers() -> None:
    as_scores = scored(graded.RANKINGS)
    as_lists = {qid: ranking for qid, ranking in graded.RANKINGS.items() if ranking}
    by_scores = harness.evaluate(graded.QRELS, as_scores, NAMES)
    assert harness.evaluate(graded.QRELS, as_lists, NAMES) == by_scores
    assert by_scores.measures == tuple(NAMES) and set(by_scores.per_query) == set(graded.QRELS)
    for qid, values in reference(NAMES, as_scores, graded.QRELS).items():
        assert all(abs(by_scores.per_query[qid][name] - values[name]) <= 1e-12 for name in NAMES), qid


def test_the_default_set_is_the_receipts_nine_by_the_runners_code() -> None:
    found = harness.evaluate(graded.QRELS, graded.RANKINGS)
    assert found.measures == DEFAULT_MEASURES and found.conventions == TREC_EVAL
    for qid, ranking in graded.RANKINGS.items():
        receipt = query_metrics(ranking, graded.QRELS[qid], TREC_EVAL)
        assert {DEFAULT_NAMES[key]: value for key, value in receipt.items()} == found.per_query[qid]


def test_tied_scores_are_ranked_as_trec_eval_ranks_them() -> None:
    """Ties broken by doc id descending: the relevant `a`, tied with `b` and `c`, ranks third; pytrec_eval agrees.
    Read in the run's own order (a first) or by id ascending (ir_measures' tie rule), every number would differ."""
    qrels = {"q1": {"a": 1}, "q2": {"d10": 1, "d9": 2}, "q3": {"x": 1}}
    run = {"q1": {"a": 2.0, "b": 2.0, "c": 2.0, "z": 1.0},
           "q2": {"d10": 5.0, "d9": 5.0, "d100": 5.0, "d1": 7.0},  # byte order: d9 > d100 > d10
           "q3": {"é": 1.0, "x": 1.0, "X": 1.0}}  # é (0xC3 0xA9 in UTF-8) sorts above x, which sorts above X
    names = ["RR@10", "P@1", "P@2", "AP@10", "nDCG@10", "Success@1", "R@2"]
    found = harness.evaluate(qrels, run, names)
    trec = pytrec_eval.RelevanceEvaluator(qrels, {"P.1,2", "map_cut.10", "ndcg_cut.10", "success.1", "recall.2",
                                                  "recip_rank"}).evaluate(run)
    keys = {"RR@10": "recip_rank", "P@1": "P_1", "P@2": "P_2", "AP@10": "map_cut_10", "nDCG@10": "ndcg_cut_10",
            "Success@1": "success_1", "R@2": "recall_2"}
    for qid in qrels:
        assert found.per_query[qid] == pytest.approx({name: trec[qid][keys[name]] for name in names}, abs=1e-12)
    assert (found.per_query["q1"]["RR@10"], found.per_query["q3"]["RR@10"]) == (1 / 3, 1 / 2)
    assert found.per_query["q2"]["P@2"] == 0.5 and found.per_query["q2"]["R@2"] == 0.5  # d9 second, d10 fourth
    as_given = harness.evaluate(qrels, {qid: list(scores) for qid, scores in run.items()}, names)
    assert as_given.per_query["q1"]["RR@10"] == 1.0 != found.per_query["q1"]["RR@10"]


def _minus_c(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> dict[str, float]:
    """trec_eval -c's means: pytrec_eval's per-query values, a judged query it does not report counted as 0."""
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10,100", "P.5", "recall.100", "map_cut.10",
                                                       "success.1"}).evaluate(run)
    return {name: math.fsum(per_query.get(qid, {}).get(key, 0.0) for qid in qrels) / len(qrels)
            for name, key in TREC_MEANS.items()}


def test_the_mean_is_trec_eval_minus_c_over_the_judged_queries() -> None:
    run = scored(graded.RANKINGS)  # `empty` is judged and not ranked
    run["unjudged"] = {"a": 1.0, "m00": 0.5}  # ranked and not judged: not counted
    found = harness.evaluate(graded.QRELS, run, list(TREC_MEANS))
    assert set(found.per_query) == set(graded.QRELS) and "unjudged" not in found.per_query
    assert set(found.per_query["empty"].values()) == {0.0}
    assert found.mean == pytest.approx(_minus_c(graded.QRELS, run), abs=1e-12)
    without_c = {name: sum(values[name] for qid, values in found.per_query.items() if qid in run) / 7
                 for name in TREC_MEANS}
    assert found.mean != pytest.approx(without_c, abs=1e-12)  # the unranked query is in the mean, as 0


@pytest.mark.real_data
def test_the_minus_c_mean_on_scifact_calibration_with_bm25s(scifact_archive: Path) -> None:
    split = harness.calibration("scifact", scifact_archive)
    run = bm25_run(split.corpus, split.queries)
    dropped = split.query_ids[:7]  # queries the run does not rank
    for qid in dropped:
        del run[qid]
    found = harness.evaluate(split.qrels, run, list(TREC_MEANS), conventions=split.conventions)
    assert len(found.per_query) == 100 and all(set(found.per_query[q].values()) == {0.0} for q in dropped)
    assert found.mean == pytest.approx(_minus_c(split.qrels, run), abs=1e-12)


@pytest.mark.parametrize(("qrels", "run", "measures", "words"), [
    ({"q": {"a": "1"}}, {"q": {"a": 1.0}}, None, ["qrels['q']['a'] is '1'", "int grade"]),
    ({"q": {"a": 1.0}}, {"q": {"a": 1.0}}, None, ["qrels['q']['a'] is 1.0"]),
    ({"q": {"a": True}}, {"q": {"a": 1.0}}, None, ["qrels['q']['a'] is True"]),
    ({"q": {}}, {"q": {"a": 1.0}}, None, ["qrels['q'] is {}", "at least one"]),
    ({}, {"q": {"a": 1.0}}, None, ["no judged query"]),
    ({"q": {"a": 1}}, {"q": {"a": math.nan}}, None, ["run['q']['a'] is nan, not a finite number"]),
    ({"q": {"a": 1}}, {"q": {"a": 1.0, "b": -math.inf}}, None, ["run['q']['b'] is -inf"]),
    ({"q": {"a": 1}}, {"q": {"a": "0.5"}}, None, ["run['q']['a'] is '0.5'"]),
    ({"q": {"a": 1}}, {"q": {"a": 1.0, 7: 0.5}}, None, ["doc id 7, which is not a str"]),
    ({"q": {"a": 1}}, {"q": ["a", "b", "a"]}, None, ["run['q'] lists the doc id 'a' twice"]),
    ({"q": {"a": 1}}, {"q": "a b"}, None, ["run['q'] is 'a b'"]),
    ({"q": {"a": 1}}, [("q", "a", 1.0)], None, ["run must map query ids"]),
    ({"q": {"a": 1}}, {"q": ["a"]}, ["ndcg@10"], ["measure 'ndcg@10'", "'nDCG@10'"]),
    ({"q": {"a": 1}}, {"q": ["a"]}, ["P@5", "P(rel=1)@5"], ["'P@5' twice"]),
    ({"q": {"a": 1}}, {"q": ["a"]}, [], ["measures is empty"]),
])
def test_bad_input_is_named(qrels: object, run: object, measures: list[str] | None, words: list[str]) -> None:
    with pytest.raises(HarnessError) as refused:
        harness.evaluate(qrels, run, measures)  # type: ignore[arg-type]
    assert isinstance(refused.value, EvaluationInputError | MeasureNameError), refused.value
    assert all(word in str(refused.value) for word in words), str(refused.value)


def test_conventions_are_trec_evals_unless_given() -> None:
    qrels, ranking = {"q": {f"r{i}": 1 for i in range(12)}}, {"q": [f"r{i}" for i in range(10)]}
    assert harness.evaluate(qrels, ranking, ["AP@10"]).mean["AP@10"] == 10 / 12
    declared = {"ndcg_gain": "grade", "map_denominator": "relevant_within_k"}
    assert harness.evaluate(qrels, ranking, "AP@10", conventions=declared).mean["AP@10"] == 1.0
    assert harness.evaluate(qrels, ranking, "AP@10", conventions=Conventions.declared(declared)).mean["AP@10"] == 1.0
    with pytest.raises(EvaluationInputError, match="map_denominator is 'min'"):
        harness.evaluate(qrels, ranking, conventions={"ndcg_gain": "grade", "map_denominator": "min"})


def test_import_harness_loads_no_corpus_numpy_or_statistics_code() -> None:
    probe = ("import sys, harness\nbefore = sorted(m for m in sys.modules if m.startswith(('harness.', 'numpy')))\n"
             "harness.evaluate({'q': {'a': 1}}, {'q': {'a': 1.0}}, ['nDCG@10'])\n"
             "print(before, 'numpy' in sys.modules, 'harness.corpus.dataset' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          check=True)
    assert done.stdout.split() == ["[]", "False", "False"], done.stdout


@pytest.mark.real_data
def test_the_calibration_split_of_the_real_archive(scifact_archive: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCIFACT_ARCHIVE", str(scifact_archive))
    split = harness.calibration()  # SciFact, found as `build` finds it
    dataset = load_dataset(scifact_archive, scifact_contract())
    assert split.query_ids == select([q.query_id for q in dataset.queries], "calibration", 100)
    assert split.qrels == {qid: dataset.qrels[qid] for qid in split.query_ids} and len(split.corpus) == 5183
    assert split.queries == {q.query_id: q.text for q in dataset.queries if q.query_id in split.qrels}
    assert split.dataset == "beir-scifact" and split.conventions == TREC_EVAL
    assert split.corpus["4983"]["title"] == next(d.title for d in dataset.documents if d.doc_id == "4983")


@pytest.mark.real_data
def test_a_changed_archive_is_refused_as_build_refuses_it(scifact_archive: Path, tmp_path: Path) -> None:
    with zipfile.ZipFile(scifact_archive) as source:
        members = {name: source.read(name) for name in source.namelist() if not name.endswith("/")}
    members["scifact/qrels/test.tsv"] = members["scifact/qrels/test.tsv"].replace(b"\t1\r\n", b"\t2\r\n", 1)
    with pytest.raises(PayloadDigestMismatch, match=r"scifact/qrels/test\.tsv"):
        harness.calibration("scifact", write_zip(tmp_path / "scifact.zip", members, directories=False))


@pytest.mark.parametrize("split", ["heldout", "all"])
def test_the_heldout_judgements_are_refused_before_anything_is_read(split: str, tmp_path: Path) -> None:
    with pytest.raises(RefusedError) as refused:
        harness.calibration("scifact", tmp_path / "absent.zip", split=split)
    message = str(refused.value)
    assert "`run --split heldout` after `freeze`" in message and "split='calibration'" in message, message
    assert refused.value.exit_code == 3


def _own_collection(root: Path) -> tuple[Path, Path]:
    """The graded collection of one's own (grades 2, 1, 0, -1), packed and declared; its contract file and zip."""
    archive = pack_directory(write_collection(root / "graded"), "graded", root / "graded.zip")
    contract = root / "graded.contract.json"
    contract.write_text(json.dumps(declare(archive, "graded")), encoding="utf-8")
    return contract, archive


def test_the_calibration_split_of_a_collection_of_ones_own(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SCIFACT_ARCHIVE", raising=False)
    contract, archive = _own_collection(tmp_path)
    split = harness.calibration(contract)  # graded.zip beside the contract, as --contract finds it
    assert split == harness.calibration(str(contract), archive)
    assert split.dataset == "graded" and len(split.query_ids) == 20 and len(split.corpus) == 360
    assert split.query_ids == select([f"Q{q:03d}" for q in range(60)], "calibration", 20)
    assert {grade for judged in split.qrels.values() for grade in judged.values()} == {2, 1, 0, -1}
    with pytest.raises(RefusedError, match="after `freeze`"):
        harness.calibration(contract, split="heldout")
    run = bm25_run(split.corpus, split.queries, depth=100)
    names = ["nDCG@10", "P(rel=2)@5", "R@100", "AP(rel=2)@10", "RR@10", "Judged@10"]
    found = harness.evaluate(split.qrels, run, names, conventions=split.conventions)
    for qid, values in reference(names, run, split.qrels).items():
        assert found.per_query[qid] == pytest.approx(values, abs=1e-12), qid


def test_no_archive_is_named_with_the_ways_to_give_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SCIFACT_ARCHIVE", raising=False)
    with pytest.raises(HarnessError, match=r"pass archive=PATH.*\$SCIFACT_ARCHIVE.*work_dir=DIR"):
        harness.calibration("scifact")
    with pytest.raises(HarnessError, match="neither a shipped dataset"):
        harness.calibration(tmp_path / "nothing.json")
    contract, _ = _own_collection(tmp_path)
    (tmp_path / "graded.zip").unlink()
    with pytest.raises(HarnessError, match="no archive of graded: pass archive=PATH"):
        harness.calibration(contract)
