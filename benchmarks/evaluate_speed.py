"""`python -m benchmarks.evaluate_speed [--archive ZIP] [--corpus FIXTURE] [--rounds R] [--fresh F] [--keep DIR]
[--out FILE]`: the
harness's `evaluate` against ranx's `evaluate` and pytrec_eval on one run, side by side.

The run: bm25s's top 100 for every SciFact test query (300; `fixtures/bm25_run.py`), written as a TREC run file and
as ranx JSON beside the test judgements (TREC qrels and JSON). The measures: the harness's default nine plus P@5 and
nDCG@100 (ranx: ndcg@10, recall@k, mrr@10, map@10, hit_rate@k, precision@5, ndcg@100; pytrec_eval: ndcg_cut,
recall, map_cut, success, P and recip_rank on the run cut to its top 10, as trec_eval ranks it).

Two forms, each tool's arms interleaved round by round so that load reaches each alike:
- in-process, warm: the inputs already in memory in each tool's form (ranx's Qrels and Run built once, pytrec_eval's
  RelevanceEvaluators built once; the harness from plain dicts), one untimed call first (ranx loads or compiles its
  numba code there), then the median of R timed calls;
- a fresh process, as a user runs it: `python -c` that imports the tool, reads the files, evaluates and prints the
  means; one untimed run of each first (ranx's numba cache and the page cache warmed), then the median of F.
Every tool's means are held to the harness's (the largest difference is printed): the same numbers, or the
benchmark fails. Reads the judgements of every test query (no system under test sees them; only times and
differences are printed). The archive defaults to $SCIFACT_ARCHIVE.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import harness
from benchmarks.evaluate_cli import Arm, calibration_inputs, cli_arms
from fixtures.bm25_run import bm25_run
from harness.corpus.contract import scifact_contract
from harness.corpus.dataset import load_dataset

ROOT = Path(__file__).resolve().parent.parent
NAMES = ["nDCG@10", "R@1", "R@5", "R@10", "RR@10", "AP@10", "Success@1", "Success@5", "Success@10", "P@5",
         "nDCG@100"]
RANX = {"nDCG@10": "ndcg@10", "R@1": "recall@1", "R@5": "recall@5", "R@10": "recall@10", "RR@10": "mrr@10",
        "AP@10": "map@10", "Success@1": "hit_rate@1", "Success@5": "hit_rate@5", "Success@10": "hit_rate@10",
        "P@5": "precision@5", "nDCG@100": "ndcg@100"}
TREC = {"nDCG@10": "ndcg_cut_10", "R@1": "recall_1", "R@5": "recall_5", "R@10": "recall_10", "RR@10": "recip_rank",
        "AP@10": "map_cut_10", "Success@1": "success_1", "Success@5": "success_5", "Success@10": "success_10",
        "P@5": "P_5", "nDCG@100": "ndcg_cut_100"}
TREC_ASKED = {"ndcg_cut.10,100", "recall.1,5,10", "map_cut.10", "success.1,5,10", "P.5"}
TOLERANCE = 1e-12

HARNESS = f"""import json, sys, harness
with open(sys.argv[1]) as f: qrels = json.load(f)
with open(sys.argv[2]) as f: run = json.load(f)
print(json.dumps(harness.evaluate(qrels, run, {NAMES!r}).mean))
"""
RANX_SCRIPT = f"""import json, sys
from ranx import Qrels, Run, evaluate
means = evaluate(Qrels.from_file(sys.argv[1]), Run.from_file(sys.argv[2]), {list(RANX.values())!r})
print(json.dumps({{name: float(means[key]) for name, key in {RANX!r}.items()}}))
"""
PYTREC = f"""import json, math, sys, pytrec_eval
with open(sys.argv[1]) as f: qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f: run = pytrec_eval.parse_run(f)
full = pytrec_eval.RelevanceEvaluator(qrels, {TREC_ASKED!r}).evaluate(run)
top = {{q: dict(sorted(d.items(), key=lambda x: (x[1], x[0]), reverse=True)[:10]) for q, d in run.items()}}
rr = pytrec_eval.RelevanceEvaluator(qrels, {{"recip_rank"}}).evaluate(top)
rows = {{q: {{**full.get(q, {{}}), **rr.get(q, {{}})}} for q in qrels}}
print(json.dumps({{n: math.fsum(r.get(k, 0.0) for r in rows.values()) / len(rows) for n, k in {TREC!r}.items()}}))
"""


def write_inputs(archive: Path, directory: Path) -> dict[str, Path]:
    """bm25s's top 100 for every test query, as TREC and ranx JSON, with the test judgements in both forms."""
    dataset = load_dataset(archive, scifact_contract())
    corpus = {doc.doc_id: {"title": doc.title, "text": doc.text} for doc in dataset.documents}
    run = bm25_run(corpus, {query.query_id: query.text for query in dataset.queries}, depth=100)
    files = {name: directory / name for name in ("qrels.trec", "run.trec", "qrels.json", "run.json")}
    files["qrels.trec"].write_text("".join(f"{qid} 0 {doc} {grade}\n" for qid, judged in dataset.qrels.items()
                                           for doc, grade in judged.items()), encoding="utf-8")
    files["run.trec"].write_text("".join(
        f"{qid} Q0 {doc} {rank} {score!r} bm25s\n" for qid, scores in run.items()
        for rank, (doc, score) in enumerate(sorted(scores.items(), key=lambda x: (x[1], x[0]), reverse=True), 1)),
        encoding="utf-8")
    files["qrels.json"].write_text(json.dumps(dataset.qrels), encoding="utf-8")
    files["run.json"].write_text(json.dumps(run), encoding="utf-8")
    return files


def warm_arms(files: dict[str, Path]) -> dict[str, Callable[[], dict[str, float]]]:
    """Each tool's evaluation of the inputs already in memory in its own form, returning the means by our names."""
    import pytrec_eval
    import ranx

    qrels = json.loads(files["qrels.json"].read_text(encoding="utf-8"))
    run = json.loads(files["run.json"].read_text(encoding="utf-8"))
    ranx_qrels, ranx_run = ranx.Qrels(qrels), ranx.Run(run)
    full = pytrec_eval.RelevanceEvaluator(qrels, TREC_ASKED)
    first = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"})

    def ranx_means(given_qrels: Any, given_run: Any) -> dict[str, float]:
        means = ranx.evaluate(given_qrels, given_run, list(RANX.values()))
        return {name: float(means[key]) for name, key in RANX.items()}

    def pytrec() -> dict[str, float]:
        rows = full.evaluate(run)
        top = {q: dict(sorted(d.items(), key=lambda x: (x[1], x[0]), reverse=True)[:10]) for q, d in run.items()}
        for qid, values in first.evaluate(top).items():
            rows.setdefault(qid, {}).update(values)
        return {name: sum(rows.get(q, {}).get(key, 0.0) for q in qrels) / len(qrels) for name, key in TREC.items()}

    return {"harness.evaluate (dicts)": lambda: harness.evaluate(qrels, run, NAMES).mean,
            "ranx.evaluate (Qrels, Run built once)": lambda: ranx_means(ranx_qrels, ranx_run),
            "ranx.evaluate (dicts)": lambda: ranx_means(qrels, run),
            "pytrec_eval (evaluators built once)": pytrec}


def fresh_arms(files: dict[str, Path]) -> dict[str, list[str]]:
    python = sys.executable
    return {"harness (reads run.json)": [python, "-c", HARNESS, str(files["qrels.json"]), str(files["run.json"])],
            "ranx (reads run.json)": [python, "-c", RANX_SCRIPT, str(files["qrels.json"]), str(files["run.json"])],
            "ranx (reads run.trec)": [python, "-c", RANX_SCRIPT, str(files["qrels.trec"]), str(files["run.trec"])],
            "pytrec_eval (reads run.trec)": [python, "-c", PYTREC, str(files["qrels.trec"]), str(files["run.trec"])],
            "python -c pass (the interpreter alone)": [python, "-c", "pass"]}


def _largest_difference(found: dict[str, float], ours: dict[str, float]) -> float:
    if set(found) != set(ours):
        return float("inf")
    return max(abs(found[name] - ours[name]) for name in ours)


def measure(files: dict[str, Path], rounds: int, fresh: int, cli: dict[str, Arm] | None = None,
            cli_means: dict[str, float] | None = None) -> dict[str, Any]:
    """`cli`: the command-line arms (evaluate_cli.py), each held to `cli_means` (the calibration queries')."""
    arms, results = warm_arms(files), {}
    ours = arms["harness.evaluate (dicts)"]()
    first: dict[str, float] = {}
    for name, arm in arms.items():
        started = time.perf_counter()
        difference = _largest_difference(arm(), ours)
        first[name] = time.perf_counter() - started
        results[name] = {"form": "in-process, warm", "first_call_s": first[name], "difference": difference}
    times: dict[str, list[float]] = {name: [] for name in arms}
    for number in range(rounds):
        for name, arm in list(arms.items())[:: 1 if number % 2 == 0 else -1]:
            started = time.perf_counter()
            arm()
            times[name].append(time.perf_counter() - started)
    for name, calls in times.items():
        results[name].update(median_ms=statistics.median(calls) * 1000, min_ms=min(calls) * 1000)
    commands: dict[str, Arm] = {name: (command, json.loads) for name, command in fresh_arms(files).items()}
    commands.update(cli or {})
    spent: dict[str, list[float]] = {name: [] for name in commands}
    for number in range(fresh + 1):
        for name, (command, means_of) in list(commands.items())[:: 1 if number % 2 == 0 else -1]:
            env = {**os.environ, "PYTHONPATH": str(ROOT)}
            started = time.perf_counter()
            done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env, check=False)
            taken = time.perf_counter() - started
            if done.returncode != 0:
                raise SystemExit(f"{name} failed: {done.stderr[-2000:]}")
            if number > 0:  # the first round is untimed: caches warmed
                spent[name].append(taken)
            expected = cli_means if cli is not None and name in cli else ours
            said = means_of(done.stdout) if done.stdout.strip() else None
            results.setdefault(name, {"form": "fresh process"})["difference"] = None if said is None or not \
                expected else _largest_difference(said, {key: expected[key] for key in said})
    for name, processes in spent.items():
        results[name].update(median_s=statistics.median(processes), min_s=min(processes))
    return results


def table(results: dict[str, Any]) -> str:
    lines = ["| tool | form | median | min | largest difference from the harness's means |",
             "| --- | --- | --- | --- | --- |"]
    for name, found in results.items():
        if "median_ms" in found:
            median, least = f"{found['median_ms']:.2f} ms", f"{found['min_ms']:.2f} ms"
        else:
            median, least = f"{found['median_s']:.3f} s", f"{found['min_s']:.3f} s"
        difference = "" if found["difference"] is None else f"{found['difference']:.1e}"
        lines.append(f"| {name} | {found['form']} | {median} | {least} | {difference} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.evaluate_speed", description=__doc__.split("\n")[0])
    parser.add_argument("--archive", type=Path, default=os.environ.get("SCIFACT_ARCHIVE"))
    parser.add_argument("--rounds", type=int, default=21, help="timed warm calls of each tool (default 21)")
    parser.add_argument("--fresh", type=int, default=5, help="timed fresh processes of each tool (default 5)")
    parser.add_argument("--keep", type=Path, default=None, help="write the run and qrels files here, and keep them")
    parser.add_argument("--out", type=Path, default=None, help="also write the figures as JSON")
    parser.add_argument("--corpus", type=Path, default=None,
                        help="the SciFact fixture (work-dir/scifact-corpus.json): also time `scifact-harness evaluate "
                             "RUN_FILE` as a user types it, beside ranx on the same calibration queries")
    args = parser.parse_args(argv)
    if args.archive is None or not Path(args.archive).is_file():
        parser.error("pass --archive (the SciFact zip) or set $SCIFACT_ARCHIVE")
    with tempfile.TemporaryDirectory() as scratch:
        directory = args.keep or Path(scratch)
        directory.mkdir(parents=True, exist_ok=True)
        files = write_inputs(Path(args.archive), directory)
        cli, cli_means = None, None
        if args.corpus is not None:
            qrels, cli_means = calibration_inputs(Path(args.archive), files["run.trec"], directory)
            cli = cli_arms(files["run.trec"], args.corpus, Path(args.archive), directory, qrels)
        results = measure(files, args.rounds, args.fresh, cli, cli_means)
    print(table(results))
    print(f"300 queries, 100 documents each, {len(NAMES)} measures; load average {os.getloadavg()[0]:.2f} on "
          f"{os.cpu_count()} cores; Python {sys.version.split()[0]}")
    if args.out is not None:
        args.out.write_text(json.dumps(results, indent=1), encoding="utf-8")
    worst = max(found["difference"] or 0.0 for found in results.values())
    if worst > TOLERANCE:
        print(f"the tools' means differ by up to {worst:.1e}, more than {TOLERANCE:g}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
