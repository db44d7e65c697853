"""`python -m benchmarks.publishing --spend-heldout [--warm-runs N] [--out FILE]`: the wall clock of what a user
types, from this clone's root, with the corpus fixture already built in work-dir/ (a first `make calibration` builds
it): a warm `make calibration` (fixture and store built), the README's publishing path step by step (the block
between its documented-path markers, run with bash as printed), and a second `bundle` of the validated output
directory (stored verdicts and the kept re-embedding reused).

The publishing path spends a look at the held-out split (counted in your held-out record), so it runs only with
--spend-heldout. It needs work-dir/results, work-dir/store and work-dir/bundle absent, as on a fresh clone; the warm
calibration runs first, so it builds the store, and both are then moved aside (work-dir/benchmark-<time>/), never
deleted. Timings are of this machine at this moment: run it on a quiet machine and report the load it shows.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
START, END = "<!-- documented-path:start -->", "<!-- documented-path:end -->"
STEP = re.compile(r"^# (\d+)\. (.*)$")


def documented_block(page: Path, start: str = START, end: str = END) -> str:
    """The ```bash block between a page's two markers (each there exactly once), without its `ci: run` comment."""
    text = page.read_text(encoding="utf-8")
    if text.count(start) != 1 or text.count(end) != 1:
        raise ValueError(f"{page} must mark {start} and {end} exactly once")
    block = text[text.index(start) + len(start):text.index(end)].strip()
    block = re.sub(r"\A<!-- ci: run [a-z0-9-]+ -->\n", "", block)  # the comment test_documented_blocks.py reads
    body = re.fullmatch(r"```bash\n(.*)\n```", block, flags=re.DOTALL)
    if body is None:
        raise ValueError(f"{page}: no single ```bash block between {start} and {end}")
    return body.group(1) + "\n"


def documented_steps(readme: Path) -> list[tuple[str, str]]:
    """The block's numbered steps: (the step's first comment line, its commands with their comments)."""
    steps: list[tuple[str, list[str]]] = []
    for line in documented_block(readme).splitlines():
        found = STEP.match(line)
        if found:
            steps.append((f"{found.group(1)}. {found.group(2)}", []))
        if steps:
            steps[-1][1].append(line)
    return [(title, "\n".join(lines)) for title, lines in steps]


def _timed(script: str, env: dict[str, str]) -> float:
    started = time.monotonic()
    done = subprocess.run(["bash", "-c", "set -euo pipefail\n" + script], cwd=ROOT, env=env, check=False,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"exit {done.returncode} after {seconds:.1f} s:\n{script}\n{done.stderr[-3000:]}")
    return seconds


def _load() -> float:
    return os.getloadavg()[0]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.publishing", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--spend-heldout", action="store_true", help="required: the path looks at the held-out split")
    parser.add_argument("--warm-runs", type=int, default=3, help="warm `make calibration` runs (the median is shown)")
    parser.add_argument("--out", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args(argv)
    if not args.spend_heldout:
        parser.error("the publishing path spends a held-out look: pass --spend-heldout to run it")
    work = ROOT / "work-dir"
    if not (work / "scifact-corpus.json").is_file():
        parser.error("work-dir/scifact-corpus.json is missing: build the fixture first (make calibration)")
    present = [name for name in ("results", "store", "bundle") if (work / name).exists()]
    if present:
        parser.error(f"work-dir/{', work-dir/'.join(present)} exist(s): move them aside, as on a fresh clone")
    try:
        documented = documented_steps(ROOT / "README.md")
    except ValueError as exc:
        raise SystemExit(str(exc)) from exc
    env = {k: v for k, v in os.environ.items() if k not in ("SCIFACT_WORK_DIR", "PYTEST_ADDOPTS")}
    figures: dict[str, object] = {"load_before": _load()}
    _timed("make calibration", env)  # builds the store: the runs below are warm
    warm = sorted(_timed("make calibration", env) for _ in range(args.warm_runs))
    figures["warm_calibration_seconds"] = warm
    aside = work / f"benchmark-{time.strftime('%Y%m%dT%H%M%S')}"
    aside.mkdir()
    for name in ("results", "store"):
        (work / name).rename(aside / name)
    steps = {title: _timed(script, env) for title, script in documented}
    figures["publishing_path_seconds"] = steps
    figures["second_bundle_seconds"] = _timed(".venv/bin/python -m harness bundle --output-dir work-dir/results "
                                              "--bundle-dir work-dir/bundle-again", env)
    figures["load_after"] = _load()
    print(f"warm make calibration: median {warm[len(warm) // 2]:.1f} s of {', '.join(f'{s:.1f}' for s in warm)}")
    for title, seconds in steps.items():
        print(f"{seconds:7.1f} s  {title}")
    print(f"{sum(steps.values()):7.1f} s  the publishing path")
    print(f"second bundle of the validated output directory: {figures['second_bundle_seconds']:.1f} s")
    print(f"load average: {figures['load_before']:.2f} before, {figures['load_after']:.2f} after; earlier results and "
          f"store moved to {aside.relative_to(ROOT)}")
    if args.out:
        args.out.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
