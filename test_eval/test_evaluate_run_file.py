"""`evaluate RUN_FILE` on the tiny corpus, as a user types it: a TREC run with tied scores and a rank column that lies
evaluates as trec_eval counts it (pytrec_eval per query); its verdict is ranking attested; the ranx and BEIR JSON forms
of the same run give the same rows; a changed byte of the kept file fails the validator; the freeze binds the file, the
held-out evaluation reads it and is a look; it compares with the built-in system's runs; a bad line is named and
leaves nothing behind."""

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import ir_measures
import pytest
import pytrec_eval

from fixtures.archives import tiny_archive
from fixtures.clean_checkout import mark_clean_checkout
from fixtures.cli import ROOT, tiny_cli_process
from harness.errors import USAGE
from harness.evaluation.history.heldout_record import read_record
from harness.evaluation.receipts.provenance import git_state
from harness.fixture.corpus_fixture import CorpusFixture

GIT = {"source.git", "source.clean"}
MEASURES = {"ndcg_cut.10", "recall.1,5,10", "map_cut.10", "success.1,5,10"}
NAMES = {"ndcg_at_10": "ndcg_cut_10", "recall_at_1": "recall_1", "recall_at_5": "recall_5",
         "recall_at_10": "recall_10", "map_at_10": "map_cut_10", "success_at_1": "success_1",
         "success_at_5": "success_5", "success_at_10": "success_10"}


def tied_run(corpus: CorpusFixture) -> dict[str, dict[str, float]]:
    """Every document for every query, scored by the words they share: many ties, which trec_eval breaks by doc id,
    the larger first."""
    run: dict[str, dict[str, float]] = {}
    for query in corpus.data["queries"]:
        words = set(query["text"].lower().split())
        for document in corpus.data["documents"]:
            shared = len(words & set(f"{document['title']} {document['text']}".lower().split()))
            run.setdefault(query["query_id"], {})[document["doc_id"]] = float(min(shared, 2))
    return run


def write_trec(run: dict[str, dict[str, float]], path: Path, tag: str = "overlap") -> Path:
    """TREC lines whose rank column counts up in file order, which trec_eval ignores (and so must the harness)."""
    lines = [f"{query} Q0 {doc} {rank} {score} {tag}" for query, scores in run.items()
             for rank, (doc, score) in enumerate(sorted(scores.items()), start=1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _evaluate(corpus: CorpusFixture, root: Path, archive: Path, *argv: str, split: str = "calibration",
              out: str = "out") -> subprocess.CompletedProcess[str]:
    return tiny_cli_process(["evaluate", *argv, "--corpus", str(corpus.path), "--store-dir", str(root / "store"),
                             "--output-dir", str(root / out), "--split", split, "--archive", str(archive)],
                            timeout=300)


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _validate(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv").is_dir() else "python", "-m",
                           "harness.validator", *argv], capture_output=True, text=True, timeout=300, cwd=ROOT)


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    return tiny_archive(tmp_path / "tiny.zip")


def test_a_tied_trec_run_counts_as_trec_eval_counts_it_and_is_ranking_attested(
        tiny_corpus: CorpusFixture, tmp_path: Path, archive: Path) -> None:
    run = tied_run(tiny_corpus)
    done = _evaluate(tiny_corpus, tmp_path, archive, str(write_trec(run, tmp_path / "overlap.trec")))
    clean = git_state(ROOT).get("dirty") is False
    assert done.returncode == (0 if clean else 1), done.stdout + done.stderr
    [line] = [line for line in done.stdout.splitlines() if line.startswith("run_file")]
    assert ("ELIGIBLE (ranking attested)" if clean else "NOT ELIGIBLE (failed: source.clean)") in line, line
    rows = _rows(tmp_path / "out" / "tiny-test-run_file-calibration.jsonl")
    qrels = {row["query_id"]: row["qrels"] for row in rows}
    found = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate({q: run[q] for q in qrels})
    calc: Any = ir_measures.iter_calc
    rr = {m.query_id: m.value for m in calc([ir_measures.RR @ 10], qrels, {q: run[q] for q in qrels})}
    ties = 0
    for row in rows:
        scores = [r["score"] for r in row["results"]]
        ties += len(scores) - len(set(scores))
        assert [r["doc_id"] for r in row["results"]] == sorted(run[row["query_id"]], key=lambda d: (
            -run[row["query_id"]][d], [-ord(c) for c in d]))  # score down, then doc id down
        for ours, theirs in NAMES.items():
            assert row["metrics"][ours] == pytest.approx(found[row["query_id"]][theirs], abs=1e-12), ours
        assert row["metrics"]["mrr_at_10"] == pytest.approx(rr.get(row["query_id"], 0.0), abs=1e-12)
    assert ties > 0  # the order of equal scores decided something
    verdict = _validate(str(tmp_path / "out" / "tiny-test-run_file-calibration.aggregate.json"), "--archive",
                        str(archive))
    assert "ATTESTED     ranking.attested: the rankings were made outside the harness, by 'overlap'" in verdict.stdout
    assert re.search(r"^PASS +ranking\.run_file: every one of 2 rows' ranking", verdict.stdout, re.M), verdict.stdout
    if clean:
        assert "ELIGIBLE for a claim of ranking attested (the rankings of 'overlap' were made outside the harness" \
            in verdict.stdout


def test_the_ranx_and_beir_json_forms_give_the_trec_runs_rows(tiny_corpus: CorpusFixture, tmp_path: Path,
                                                             archive: Path) -> None:
    ranx: Any = pytest.importorskip("ranx")
    run = tied_run(tiny_corpus)
    forms = {"trec": write_trec(run, tmp_path / "run.trec"), "beir": tmp_path / "results.json",
             "ranx": tmp_path / "ranx-run.json"}
    forms["beir"].write_text(json.dumps(run), encoding="utf-8")
    ranx.Run.from_dict(run, name="overlap").save(str(forms["ranx"]))
    rankings = {}
    for form, path in forms.items():
        done = _evaluate(tiny_corpus, tmp_path / form, archive, str(path), "--name", "overlap", "--no-validate")
        assert done.returncode == 0, done.stdout + done.stderr
        rows = _rows(tmp_path / form / "out" / "tiny-test-run_file-calibration.jsonl")
        rankings[form] = [(row["query_id"], row["ranked_doc_ids"], row["metrics"]) for row in rows]
        kept = json.loads((tmp_path / form / "store" / "run-file.json").read_text(encoding="utf-8"))
        assert kept["format"] == ("trec" if form == "trec" else "json") and kept["name"] == "overlap"
    assert rankings["trec"] == rankings["beir"] == rankings["ranx"]


def test_a_changed_byte_of_the_kept_run_file_fails_the_validator(tiny_corpus: CorpusFixture, tmp_path: Path,
                                                                 archive: Path) -> None:
    done = _evaluate(tiny_corpus, tmp_path, archive, str(write_trec(tied_run(tiny_corpus), tmp_path / "r.trec")),
                     "--no-validate")
    assert done.returncode == 0, done.stderr
    kept = tmp_path / "store" / "run.trec"
    data = bytearray(kept.read_bytes())
    data[data.index(b" 2.0 ")+2] = ord("5")  # a score of 2.0 now reads 5.0
    kept.write_bytes(bytes(data))
    verdict = _validate(str(tmp_path / "out" / "tiny-test-run_file-calibration.aggregate.json"), "--archive",
                        str(archive))
    assert verdict.returncode == 1, verdict.stdout
    failed = set(re.findall(r"^FAIL +(\S+):", verdict.stdout, re.M))
    assert {"store.parts", "store.live", "ranking.run_file"} <= failed, verdict.stdout


@pytest.mark.parametrize(("line", "problem"), [
    ("q1 Q0 d1 1 1.0", r"line 3: has 5 fields; a TREC run line has 6"),
    ("q1 Q0 d1 one 1.0 overlap", r"line 3: the rank 'one' is not an integer"),
    ("q1 Q0 d1 1 nan overlap", r"line 3: the score 'nan' is not a finite decimal number"),
    ("q1 Q0 d1 1 1.0 other", r"line 3: its run tag 'other' is not line 1's 'overlap'"),
    ("QX Q0 d1 1 1.0 overlap", r"line 3: query 'QX' is not one of the dataset's 6 judged queries"),
    ("q1 Q0 DX 1 1.0 overlap", r"line 3: document 'DX' is not one of the dataset's 10 documents"),
    ("q1 Q0 DUP 1 1.0 overlap", r"line 3: query 'q1' ranks document '\S+' again \(line 1 ranked it first\)"),
])
def test_a_bad_run_line_is_named_and_nothing_is_left(tiny_corpus: CorpusFixture, tmp_path: Path, archive: Path,
                                                      line: str, problem: str) -> None:
    queries = [q["query_id"] for q in tiny_corpus.data["queries"]]
    documents = [d["doc_id"] for d in tiny_corpus.data["documents"]]
    first = f"{queries[0]} Q0 {documents[0]} 1 3.0 overlap"
    line = line.replace("q1", queries[0]).replace("DUP", documents[0]).replace(" d1 ", f" {documents[1]} ")
    path = tmp_path / "bad.trec"
    path.write_text(f"{first}\n{queries[1]} Q0 {documents[2]} 1 2.0 overlap\n{line}\n", encoding="utf-8")
    done = _evaluate(tiny_corpus, tmp_path, archive, str(path))
    assert done.returncode == USAGE, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert re.search(f"^error: {re.escape(str(path))}, {problem}", done.stderr, re.M), done.stderr
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
    assert not (tmp_path / "store" / "run-file.json").exists() and not (tmp_path / "store" / "run.trec").exists()


def test_the_freeze_binds_the_run_file_and_the_held_out_evaluation_is_one_look(
        tiny_corpus: CorpusFixture, tmp_path: Path, archive: Path, own_heldout_record: Path) -> None:
    path = write_trec(tied_run(tiny_corpus), tmp_path / "overlap.trec")
    assert _evaluate(tiny_corpus, tmp_path, archive, str(path), "--no-validate").returncode == 0
    frozen = tiny_cli_process(["freeze", "--corpus", str(tiny_corpus.path), "--store-dir", str(tmp_path / "store"),
                               "--output-dir", str(tmp_path / "out"), "--system", "run-file", "--allow-dirty"],
                              timeout=300)
    assert frozen.returncode == 0, frozen.stdout + frozen.stderr
    assert " evaluate --corpus " in frozen.stdout and "--split heldout" in frozen.stdout, frozen.stdout
    other = tmp_path / "other.trec"
    other.write_bytes(path.read_bytes().replace(b" 1.0 ", b" 1.5 "))
    refused = _evaluate(tiny_corpus, tmp_path, archive, str(other), split="heldout")
    assert refused.returncode == USAGE and "a held-out evaluation reads the run file the freeze binds" in \
        refused.stderr, refused.stderr
    assert not own_heldout_record.exists()  # a refused evaluation spent no look
    looked = _evaluate(tiny_corpus, tmp_path, archive, "--no-validate", split="heldout")
    assert looked.returncode == 0, looked.stdout + looked.stderr
    rows = _rows(tmp_path / "out" / "tiny-test-run_file-heldout.jsonl")
    assert len(rows) == 4 and all(row["split"] == "heldout" for row in rows)
    record = read_record()
    assert record is not None and record.path == own_heldout_record
    [look] = record.entries
    assert (look["system"], look["mode"], look["split"]) == ("overlap", "run_file", "heldout")
    again = _evaluate(tiny_corpus, tmp_path, archive, "--no-validate", split="heldout", out="out")
    assert again.returncode != 0 and "Traceback" not in again.stderr


def test_a_run_file_compares_with_the_built_in_systems_runs(tiny_corpus: CorpusFixture, tmp_path: Path,
                                                            archive: Path) -> None:
    built = tiny_cli_process(["run", "--corpus", str(tiny_corpus.path), "--store-dir", str(tmp_path / "bstore"),
                              "--output-dir", str(tmp_path / "builtin"), "--split", "calibration", "--no-validate"],
                             timeout=300)
    assert built.returncode == 0, built.stderr
    path = write_trec(tied_run(tiny_corpus), tmp_path / "overlap.trec")
    assert _evaluate(tiny_corpus, tmp_path, archive, str(path), "--no-validate").returncode == 0
    compared = tiny_cli_process(["compare", "--output-dir", str(tmp_path / "cmp"), "--run",
                                 f"builtin={tmp_path / 'builtin'}", "--run", f"overlap={tmp_path / 'out'}",
                                 "--split", "calibration", "--archive", str(archive), "--no-validate"], timeout=300)
    assert compared.returncode == 0, compared.stdout + compared.stderr
    pairs = re.findall(r"\[exploratory\] (\S+) \u2212 (\S+) on calibration", compared.stdout)
    assert pairs == [("overlap/run_file", f"builtin/{mode}") for mode in ("fts_only", "vector_only", "hybrid")]
    verdict = _validate("--comparison", str(tmp_path / "cmp" / "tiny-test-systems-calibration.json"), "--archive",
                        str(archive))
    failing = set(re.findall(r"^FAIL +(\S+):", verdict.stdout, re.M))
    assert failing <= {"systems.inputs_eligible"}, verdict.stdout  # a work tree with changes fails source.clean
    if not failing:
        assert "ELIGIBLE for a claim of ranking attested (the rankings of 'overlap'" in verdict.stdout


def test_a_hypothesis_declared_at_the_run_files_freeze_is_confirmatory_on_held_out(
        tiny_corpus: CorpusFixture, tmp_path: Path, archive: Path, own_heldout_record: Path) -> None:
    corpus = ["--corpus", str(tiny_corpus.path)]
    builtin = [*corpus, "--store-dir", str(tmp_path / "bstore"), "--output-dir", str(tmp_path / "builtin")]
    for step in (["run", *builtin, "--split", "calibration", "--no-validate"], ["freeze", *builtin, "--allow-dirty"]):
        done = tiny_cli_process(step, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
    path = write_trec(tied_run(tiny_corpus), tmp_path / "overlap.trec")
    assert _evaluate(tiny_corpus, tmp_path, archive, str(path), "--no-validate").returncode == 0
    frozen = tiny_cli_process(["freeze", *corpus, "--store-dir", str(tmp_path / "store"), "--output-dir",
                               str(tmp_path / "out"), "--system", "run-file", "--allow-dirty", "--hypothesis",
                               "run_file > fts_only", "--hypothesis-baseline", str(tmp_path / "builtin")], timeout=300)
    assert frozen.returncode == 0, frozen.stdout + frozen.stderr
    looked = tiny_cli_process(["run", *builtin, "--split", "heldout", "--no-validate"], timeout=300)
    assert looked.returncode == 0, looked.stderr
    assert _evaluate(tiny_corpus, tmp_path, archive, "--no-validate", split="heldout").returncode == 0
    for out in ("builtin", "out"):  # as a clean clone writes them: a held-out comparison reads eligible runs only
        mark_clean_checkout(tmp_path / out)
    compared = tiny_cli_process(["compare", "--output-dir", str(tmp_path / "cmp"), "--run",
                                 f"builtin={tmp_path / 'builtin'}", "--run", f"overlap={tmp_path / 'out'}",
                                 "--split", "heldout", "--archive", str(archive)], timeout=300)
    assert compared.returncode == 0, compared.stdout + compared.stderr
    lines = [line for line in compared.stdout.splitlines() if "overlap/run_file" in line]
    assert [line for line in lines if "builtin/fts_only" in line and "[confirmatory" in line], compared.stdout
    assert all("[exploratory]" in line for line in lines if "builtin/fts_only" not in line), compared.stdout
