"""The command-line form of evaluating a run file, for `benchmarks.evaluate_speed --corpus FIXTURE`: `scifact-harness
evaluate RUN_FILE --split calibration` as a user types it (process start, the fixture read and verified, the run file
read and kept, rows, receipts, the run ledger, and the validator's verdict unless --no-validate), beside ranx evaluating
the same calibration queries in a fresh process. Each arm's means are held to `harness.evaluate`'s on those queries."""

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import harness
from harness.evaluation.measures.named import DEFAULT_NAMES

RANX_CALIBRATION = """import json, sys
from ranx import Qrels, Run, evaluate
run = Run.from_file(sys.argv[2])
qrels = Qrels.from_file(sys.argv[1])
keys = {"nDCG@10": "ndcg@10", "R@10": "recall@10", "RR@10": "mrr@10", "AP@10": "map@10", "Success@1": "hit_rate@1"}
means = evaluate(qrels, run, list(keys.values()), make_comparable=True)  # the run holds all 300 queries
print(json.dumps({name: float(means[key]) for name, key in keys.items()}))
"""
CHECKED = ("nDCG@10", "R@10", "RR@10", "AP@10", "Success@1")

Arm = tuple[list[str], Callable[[str], dict[str, float]]]  # the command, and its means from its stdout


def calibration_inputs(archive: Path, run_trec: Path, directory: Path) -> tuple[Path, dict[str, float]]:
    """The calibration split's judgements as TREC qrels (for ranx), and harness.evaluate's means on them."""
    split = harness.calibration("scifact", archive)
    qrels = directory / "qrels-calibration.trec"
    qrels.write_text("".join(f"{qid} 0 {doc} {grade}\n" for qid, judged in split.qrels.items()
                             for doc, grade in judged.items()), encoding="utf-8")
    run: dict[str, dict[str, float]] = {}
    for line in run_trec.read_text(encoding="utf-8").splitlines():
        qid, _, doc, _, score, _ = line.split()
        run.setdefault(qid, {})[doc] = float(score)
    means = harness.evaluate(split.qrels, run, list(CHECKED), conventions=split.conventions).mean
    return qrels, means


def cli_arms(run_trec: Path, corpus: Path, archive: Path, scratch: Path, qrels: Path) -> dict[str, Arm]:
    python = sys.executable
    keys = {name: key for key, name in DEFAULT_NAMES.items() if name in CHECKED}

    def aggregate_means(out: Path) -> Callable[[str], dict[str, float]]:
        def read(_: str) -> dict[str, float]:
            aggregate: dict[str, Any] = json.loads((out / "scifact-run_file-calibration.aggregate.json").read_text(
                encoding="utf-8"))
            return {name: float(aggregate["metrics"][key]) for name, key in keys.items()}
        return read

    def command(out: Path, *extra: str) -> list[str]:
        return [python, "-m", "harness", "evaluate", str(run_trec), "--corpus", str(corpus), "--store-dir",
                str(scratch / "store"), "--output-dir", str(out), "--split", "calibration", "--replace",
                "--archive", str(archive), *extra]

    validated, unvalidated = scratch / "out-validated", scratch / "out-unvalidated"
    return {"scifact-harness evaluate, calibration (100 queries; rows, receipts, the validator's verdict)":
            (command(validated), aggregate_means(validated)),
            "scifact-harness evaluate --no-validate, calibration (100 queries; rows, receipts)":
            (command(unvalidated, "--no-validate"), aggregate_means(unvalidated)),
            "ranx, calibration (100 queries; reads run.trec)":
            ([python, "-c", RANX_CALIBRATION, str(qrels), str(run_trec)], json.loads)}
