"""Time the independent validator on real artifacts: one aggregate, six in one process, the full re-embedding.

    .venv/bin/python scripts/benchmark_validator.py --results DIR [--root CHECKOUT] [--repeat N] [--full]
        [--archive scifact.zip]

DIR holds the calibration aggregates of all three modes (and the held-out ones, for the six-aggregate cases).
`--archive` adds the same single-aggregate case with the fixture re-derived from the archive, for its cost.
`--root` runs the validator of another checkout of this project (for instance an earlier commit, on artifacts
that commit produced), so two versions are timed side by side on one machine. Every figure is wall time of a
fresh process (model loading included where the embedding check runs); the best of `--repeat` runs is
reported, since other work on the machine only ever adds time.
"""

import argparse
import subprocess
import sys
import time
from pathlib import Path

MODES = ("fts_only", "vector_only", "hybrid")
SPLITS = ("calibration", "heldout")


def _timed(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if result.returncode not in (0, 1, 3):
        raise SystemExit(f"{' '.join(command)} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return elapsed


def _in_process(aggregates: list[Path], arguments: str) -> str:
    paths = ", ".join(repr(str(p)) for p in aggregates)
    return (f"from pathlib import Path\nfrom harness.validator.cli import validate\n"
            f"for path in [{paths}]:\n    validate(Path(path){arguments})\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", type=Path, required=True)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--full", action="store_true", help="also time the full re-embedding of every text")
    parser.add_argument("--archive", type=Path, help="also time one aggregate re-derived from this archive")
    args = parser.parse_args()
    results = args.results.resolve()
    one = results / "scifact-hybrid-calibration.aggregate.json"
    six = [results / f"scifact-{m}-{s}.aggregate.json" for s in SPLITS for m in MODES]
    if not one.is_file():
        raise SystemExit(f"missing aggregate: {one}")
    python = [args.python]
    bare = [*python, "-m", "harness.validator", str(one), "--no-embedding-check"]
    cases = {"one aggregate, no embedding check": bare}
    if args.archive is not None:
        cases["one aggregate, no embedding check, re-derived from the archive"] = [
            *bare, "--archive", str(args.archive.resolve())]
    cases["one aggregate, sampled embedding check"] = [*python, "-m", "harness.validator", str(one)]
    if all(p.is_file() for p in six):
        cases["six aggregates in one process, no embedding check"] = [*python, "-c",
                                                                      _in_process(six, ", embeddings=False")]
        cases["six aggregates in one process, sampled embedding check"] = [*python, "-c", _in_process(six, "")]
    cases["python start and harness.validator import"] = [*python, "-c", "import harness.validator.cli"]
    if args.full:
        cases["one aggregate, every text re-embedded"] = [*python, "-c", _in_process([one], ", full_embedding=True")]
    print(f"validator of {args.root}, best of {args.repeat}")
    print("| case | seconds |\n| --- | --- |")
    for name, command in cases.items():
        repeat = 1 if "every text" in name else args.repeat
        print(f"| {name} | {min(_timed(command, args.root) for _ in range(repeat)):.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
