"""The pytest suite on a dataset other than SciFact: `pytest -m calibration --scifact-contract=FILE
--scifact-archive=ZIP`, typed in a directory that is not this repository, evaluates a collection of the user's own
with the split sizes and top_k of its contract, into a results directory of its own, under names that carry it."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.real_model

WORDS = ("protein", "membrane", "signal", "receptor", "kinase", "mutation", "tumour", "vaccine", "neuron", "enzyme")


def _collection(directory: Path) -> Path:
    """Forty documents that all share the word 'cells' (so every query has ten lexical candidates), eight queries
    judged with grades 1 and 2, in BEIR's layout; no titles."""
    directory.mkdir(parents=True)
    documents = [{"_id": f"doc{n:02d}", "text": f"cells {WORDS[n % 10]} {WORDS[(n * 3) % 10]} study number {n}"}
                 for n in range(40)]
    queries = [{"_id": f"q{n}", "text": f"cells {WORDS[n]} and {WORDS[(n + 1) % 10]}"} for n in range(8)]
    (directory / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in documents), encoding="utf-8")
    (directory / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries), encoding="utf-8")
    (directory / "qrels").mkdir()
    judged = [f"q{n}\tdoc{n:02d}\t2\nq{n}\tdoc{n + 10:02d}\t1\n" for n in range(8)]
    (directory / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(judged), encoding="utf-8")
    return directory


def _run(directory: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "SCIFACT_ARCHIVE"}
    return subprocess.run([sys.executable, *argv], cwd=directory, env=env, capture_output=True, text=True,
                          timeout=600, check=False)


def test_the_suite_evaluates_a_collection_of_ones_own_under_its_contract(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    declared = _run(elsewhere, "-m", "harness", "contract", "--dataset-dir", str(_collection(tmp_path / "mine")),
                    "--name", "mine", "--out", "contracts/mine.json", "--calibration-count", "3")
    assert declared.returncode == 0, declared.stderr
    work = elsewhere / "work"
    done = _run(elsewhere, "-m", "pytest", "-p", "no:cacheprovider", "-p", "scifact_harness", "-p", "no:xdist",
                "-m", "calibration", "--scifact-contract=contracts/mine.json", "--scifact-archive=contracts/mine.zip",
                f"--scifact-work-dir={work}", "--scifact-no-progress")
    assert done.returncode == 0 and "3 passed" in done.stdout, done.stdout[-4000:] + done.stderr[-2000:]
    results = work / "results-mine"
    names = sorted(path.name for path in results.glob("*.aggregate.json"))
    assert names == [f"mine-{mode}-calibration.aggregate.json" for mode in ("fts_only", "hybrid", "vector_only")]
    aggregate = json.loads((results / "mine-hybrid-calibration.aggregate.json").read_bytes())
    assert aggregate["row_count"] == 3 and aggregate["receipt"]["corpus"]["contract"]["name"] == "mine"
    assert (work / "mine-corpus.json").is_file() and not (work / "scifact-corpus.json").exists()
    assert not (work / "results").exists()  # SciFact's results directory stays SciFact's


@pytest.mark.parametrize(("options", "message"), [
    (("--scifact-dataset=nfcorpus", "--scifact-contract=mine.json"),
     "--scifact-dataset and --scifact-contract both name a dataset: pass one"),
    (("--scifact-contract=missing.json",), f"--scifact-contract missing.json is not a file; write one with "
                                           f"`{sys.executable} -m harness contract --dataset-dir DIR --name NAME "
                                           "--out FILE`"),
    (("--scifact-dataset=nfcorpus", "--scifact-archive=nothere.zip"),
     "--scifact-archive nothere.zip is not a file; name the dataset's zip"),
])
def test_a_dataset_the_suite_cannot_read_is_a_usage_error_before_any_test(tmp_path: Path, options: tuple[str, ...],
                                                                         message: str) -> None:
    done = _run(tmp_path, "-m", "pytest", "-p", "no:cacheprovider", "-p", "scifact_harness", "-p", "no:xdist",
                "-m", "calibration", *options, f"--scifact-work-dir={tmp_path / 'work'}")
    assert done.returncode == 4, done.stdout + done.stderr  # pytest's usage error
    assert message in done.stderr and not (tmp_path / "work").exists()
