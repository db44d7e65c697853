"""The rules of `search` for a system of its own, each broken one named for the system to fix, through the real
command line (`python -m harness run` and `python -m harness.validator` as child processes, on the tiny corpus).

A hybrid lane key other than lexical and dense stops the run, naming the key and the form; a repeated doc id fails
its query, naming the id and its ranks, and a run with failed queries exits 6 naming the system; answers shorter
than top_k are stated in the result line; the validator does not blame the harness for the system's failures.
Every rule, with whether it fails the query or stops the run, is in test_search_rule_messages.py."""

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fixtures.cli import child_env, tiny_cli_process
from harness.errors import SYSTEM_FAILED, USAGE
from harness.fixture.corpus_fixture import CorpusFixture

SYSTEMS = '''
"""Test systems: an RRF hybrid of word overlap and the fixture's vectors, and the same with one twist each."""

from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from harness.systems.plugin import DENSE_EXACT, Corpus, Result

K, DEPTH = 60, 10
FAILS_ON = {fails_on!r}


class Hybrid:
    name = "rules-hybrid"
    version = "1.0.0"
    modes = ("fts_only", "vector_only", "hybrid")
    declarations: ClassVar[dict[str, Any]] = {{"dense": DENSE_EXACT,
                                              "fusion": {{"method": "rrf", "k": K, "candidate_depth": DEPTH}}}}
    lexical_key = "lexical"

    def configuration(self) -> dict[str, Any]:
        return {{"lexical": "shared lowercase words", "twist": type(self).__name__}}

    def build(self, corpus: Corpus, directory: Path) -> bool:
        changed = not (directory / "vectors.npy").exists()
        if changed:
            np.save(directory / "vectors.npy", corpus.vectors)
        self.open(corpus, directory)
        return changed

    def open(self, corpus: Corpus, directory: Path) -> None:
        self.directory, self.doc_ids = directory, corpus.doc_ids
        self.words = [set(f"{{t}} {{x}}".lower().split()) for t, x in zip(corpus.titles, corpus.texts)]
        self.matrix = np.load(directory / "vectors.npy")

    def parts(self) -> dict[str, Path]:
        return {{"vectors": self.directory / "vectors.npy"}}

    def lexical(self, text: str) -> list[tuple[str, float]]:
        query = set(text.lower().split())
        scored = [(d, float(len(query & w))) for w, d in zip(self.words, self.doc_ids) if query & w]
        return sorted(scored, key=lambda p: (-p[1], p[0]))

    def dense(self, vector: Any) -> list[tuple[str, float]]:
        scores = self.matrix @ vector
        return sorted(((d, float(s)) for d, s in zip(self.doc_ids, scores)), key=lambda p: (-p[1], p[0]))

    def search(self, mode: str, text: str, vector: Any, top_k: int) -> list[Result]:
        if mode != "hybrid":
            ranked = self.lexical(text) if mode == "fts_only" else self.dense(vector)
            return [Result(d, s) for d, s in ranked[:top_k]]
        lanes = {{"lexical": self.lexical(text)[:DEPTH], "dense": self.dense(vector)[:DEPTH]}}
        ranks = {{n: {{d: (r, s) for r, (d, s) in enumerate(hits, 1)}} for n, hits in lanes.items()}}
        fused = {{d: sum(1.0 / (K + ranks[n][d][0]) for n in ranks if d in ranks[n])
                 for d in set(ranks["lexical"]) | set(ranks["dense"])}}
        best = sorted(fused, key=lambda d: (-fused[d], d))[:top_k]
        return [Result(d, fused[d], {{self.lexical_key: ranks["lexical"].get(d, (None, None)),
                                      "dense": ranks["dense"].get(d, (None, None))}}) for d in best]


class Bm25Key(Hybrid):
    lexical_key = "bm25"


class Repeating(Hybrid):
    def search(self, mode: str, text: str, vector: Any, top_k: int) -> list[Result]:
        ranked = super().search(mode, text, vector, top_k)
        return ranked[:3] + ranked[:1] + ranked[4:]


class Short(Hybrid):
    def search(self, mode: str, text: str, vector: Any, top_k: int) -> list[Result]:
        return super().search(mode, text, vector, top_k)[:5]


class Raising(Hybrid):
    def search(self, mode: str, text: str, vector: Any, top_k: int) -> list[Result]:
        if text == FAILS_ON:
            raise ValueError("the index has no entry for this query")
        return super().search(mode, text, vector, top_k)


HYBRID, BM25_KEY, REPEATING, SHORT, RAISING = Hybrid(), Bm25Key(), Repeating(), Short(), Raising()
'''


@pytest.fixture
def systems(tmp_path: Path, tiny_corpus: CorpusFixture) -> dict[str, str]:
    """The test systems, importable by the child process; the Raising one fails the second calibration query."""
    fails_on = next(q["text"] for q in tiny_corpus.data["queries"] if q["query_id"] == "q5")
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "rules_systems.py").write_text(SYSTEMS.format(fails_on=fails_on), encoding="utf-8")
    return {"PYTHONPATH": f"{Path(__file__).resolve().parent.parent}:{tmp_path / 'plugins'}"}


def _run(corpus: CorpusFixture, root: Path, env: dict[str, str], system: str, *options: str) -> Any:
    return tiny_cli_process(["run", "--corpus", str(corpus.path), "--store-dir", str(root / "store"), "--output-dir",
                             str(root / "out"), "--split", "calibration", "--system", f"rules_systems:{system}",
                             *options], env=env, cwd=root, timeout=600)


def _rows(root: Path, mode: str) -> list[dict[str, Any]]:
    path = root / "out" / f"tiny-test-{mode}-calibration.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_hybrid_lane_key_other_than_lexical_and_dense_stops_the_run_naming_it(
        tiny_corpus: CorpusFixture, tmp_path: Path, systems: dict[str, str]) -> None:
    done = _run(tiny_corpus, tmp_path, systems, "BM25_KEY", "--mode", "hybrid", "--no-validate")
    assert done.returncode == USAGE and "Traceback" not in done.stderr, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("error: system 'rules-hybrid' stopped the run at query q4: search('hybrid') returned "
                           "Result.lanes key 'bm25' for doc "), line
    assert ("a hybrid's lane keys are 'lexical' and 'dense' only" in line and "rename 'bm25' to the lane it is" in line
            and "lanes={'lexical': (rank, score), 'dense': (rank, score)}" in line), line
    assert not list((tmp_path / "out").glob("*hybrid*")) if (tmp_path / "out").exists() else True


def test_a_repeated_doc_id_fails_its_queries_and_the_run_exits_naming_the_system(
        tiny_corpus: CorpusFixture, tmp_path: Path, systems: dict[str, str]) -> None:
    done = _run(tiny_corpus, tmp_path, systems, "REPEATING", "--mode", "hybrid", "--no-validate")
    rows = _rows(tmp_path, "hybrid")
    assert done.returncode == SYSTEM_FAILED, done.stdout + done.stderr
    assert all(row["failed_by"] == "system" and row["ranked_doc_ids"] == [] for row in rows)
    error = rows[0]["error"]
    assert error.startswith("system 'rules-hybrid': search('hybrid') returned doc id '"), error
    assert error.endswith("' twice (ranks 1 and 4): a ranking holds each document once"), error
    assert rows[0]["search_receipt"]["error"] == error
    assert done.stderr.strip().splitlines()[-1].startswith(
        "error: system 'rules-hybrid' failed 2 of 2 hybrid calibration queries (each row's error says why); the "
        "first, query q4: search('hybrid') returned doc id '"), done.stderr
    assert done.stderr.strip().endswith("Fix the system, then run again with --replace")
    assert "freeze" not in done.stdout  # no next step after a run whose queries failed


def test_answers_shorter_than_top_k_are_stated_in_the_result_line(
        tiny_corpus: CorpusFixture, tmp_path: Path, systems: dict[str, str]) -> None:
    done = _run(tiny_corpus, tmp_path, systems, "SHORT", "--mode", "vector_only", "--no-validate")
    assert done.returncode == 0, done.stderr
    [line] = [text for text in done.stdout.splitlines() if text.startswith("vector_only")]
    assert "failures 0  2 queries returned fewer than 10 results" in line, line
    aggregate = json.loads((tmp_path / "out" / "tiny-test-vector_only-calibration.aggregate.json").read_bytes())
    assert aggregate["metrics"]["result_count_distribution"] == {"5": 2}


def test_the_validator_names_the_system_for_its_failed_queries_not_the_harness(
        tiny_corpus: CorpusFixture, tmp_path: Path, systems: dict[str, str]) -> None:
    """fts_only is a lexical lane of the system's own engine: the validator asks the live system every query again,
    which used to ask the failed query too and report the failure as the harness's."""
    done = _run(tiny_corpus, tmp_path, systems, "RAISING", "--mode", "fts_only", "--no-validate")
    assert done.returncode == SYSTEM_FAILED, done.stderr
    assert "query q5: search('fts_only') raised ValueError: the index has no entry for this query" in done.stderr
    aggregate = tmp_path / "out" / "tiny-test-fts_only-calibration.aggregate.json"
    checked = subprocess.run([sys.executable, "-m", "harness.validator", str(aggregate), "--no-embedding-check"],
                             cwd=tmp_path, env=child_env(systems), capture_output=True, text=True, timeout=600)
    output = checked.stdout + checked.stderr
    assert "fault of the harness" not in output, output
    assert "PASS         replay.lexical:" in output, output
    assert ("FAILURES     1 of 2 queries failed, counted as zero in every mean: 1 by the system under test (its "
            "search raised, or its answer broke a rule of search: fix the system); the first, query q5: system "
            "'rules-hybrid': search('fts_only') raised ValueError") in output, output
