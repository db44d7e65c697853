"""Side by side on the calibration split: nDCG@10 and per-query latency of each mode, per system, one process (for
the paired statistics of evaluations of different systems, use `python -m harness compare --run`).

    .venv/bin/python scripts/compare_systems.py --corpus work-dir/scifact-corpus.json --out /tmp/systems \\
        [--system builtin --system milvus]

Each system is built in OUT/<system>/store and run into OUT/<system>/results (a fresh OUT each time: held-out
gates do not apply to calibration, but artifacts are never overwritten). Latency is the receipts' own figure
(the timed retrieval call), measured on this machine as loaded as it is: compare systems within one run only.
"""

import argparse
import sys
from pathlib import Path

from harness.corpus.contract import scifact_contract
from harness.evaluation.run_split import Evaluation, run_split


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--system", action="append", default=None)
    args = parser.parse_args()
    systems = args.system or ["builtin", "milvus"]
    print("| system | mode | nDCG@10 | R@10 | p50 ms | p95 ms | failures |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for system in systems:
        root = args.out / system
        runs = run_split(Evaluation(corpus=args.corpus, store_dir=root / "store", output_dir=root / "results",
                                    split="calibration", system=system, argv=tuple(sys.argv)), scifact_contract())
        for run in runs:
            m = run.aggregate["metrics"]
            print(f"| {system} | {run.mode} | {m['ndcg_at_10']:.4f} | {m['recall_at_10']:.4f} | "
                  f"{m['latency_ms']['p50']:.3f} | {m['latency_ms']['p95']:.3f} | {m['failures']} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
