"""Time the reader's one command on a real bundle: `scifact-validate --bundle DIR --archive ARCHIVE`, as a subprocess,
with a cache of the reader's own (a fresh XDG_CACHE_HOME, no validator key, no held-out record), as on a machine that
never saw the run.

    .venv/bin/python scripts/benchmark_bundle_reader.py --bundle DIR [--archive scifact.zip] [--root CHECKOUT]
        [--repeat N]

`--archive` defaults to $SCIFACT_ARCHIVE. `--root` runs the validator of another checkout of this project (for
instance the one that made the bundle: its source check compares the receipts' commit with that checkout's). Each
figure is the wall time of a fresh process, model loading included; the best of `--repeat` runs is reported, since
other work on the machine only ever adds time. Where the time goes is read from the command's own stderr, each line
stamped as it arrives: the start, each artifact's validation (the first one holds the full re-embedding of every
text, kept in the process for the others) and the re-embedding's own total. The load average is printed beside the
figures: on a busy machine they are upper bounds.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KEY_VARIABLE = "SCIFACT_VALIDATOR_KEY"
RECORD_VARIABLE = "SCIFACT_HELDOUT_RECORD"
VALIDATING = re.compile(r"^validator: --bundle: validating (\S+)")
EMBEDDED = re.compile(r"^validator: re-embedded (\d+) texts in (\d+) s")


def _run(command: list[str], cwd: Path) -> tuple[float, int, list[tuple[float, str]], str]:
    """Wall time, exit code, each stderr line with the seconds since the start, and stdout's last line."""
    with tempfile.TemporaryDirectory(prefix="reader-cache-") as cache, tempfile.TemporaryFile("w+") as report:
        env = {**os.environ, "XDG_CACHE_HOME": cache}
        env.pop(KEY_VARIABLE, None)
        env.pop(RECORD_VARIABLE, None)
        started = time.perf_counter()
        # the report goes to a file: a pipe nobody reads while stderr is followed would fill and stop the command
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=report, stderr=subprocess.PIPE, text=True)
        assert process.stderr is not None
        lines = [(time.perf_counter() - started, line.rstrip("\n")) for line in process.stderr]
        code = process.wait()
        elapsed = time.perf_counter() - started
        report.seek(0)
        out = report.read()
    last = out.strip().splitlines()[-1] if out.strip() else ""
    return elapsed, code, lines, last


def _phases(lines: list[tuple[float, str]], elapsed: float) -> list[tuple[str, float]]:
    """Start-up until the first artifact, each artifact, and the re-embedding as the validator reports it."""
    marks = [(at, match.group(1)) for at, line in lines for match in [VALIDATING.match(line)] if match]
    phases = [("start-up (interpreter, manifest check)", marks[0][0] if marks else elapsed)]
    for (at, name), (end, _) in zip(marks, [*marks[1:], (elapsed, "")], strict=True):
        phases.append((name, end - at))
    embedded = [match for _, line in lines for match in [EMBEDDED.match(line)] if match]
    if embedded:
        phases.append((f"of which the re-embedding of {embedded[-1].group(1)} texts", float(embedded[-1].group(2))))
    return phases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bundle", type=Path, required=True)
    parser.add_argument("--archive", type=Path, default=os.environ.get("SCIFACT_ARCHIVE"))
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    if args.archive is None or not Path(args.archive).is_file():
        raise SystemExit("pass --archive scifact.zip (or set SCIFACT_ARCHIVE to it)")
    if not (args.bundle / "MANIFEST.json").is_file():
        raise SystemExit(f"{args.bundle} holds no MANIFEST.json: pass a bundle `python -m harness bundle` wrote")
    command = [args.python, "-m", "harness.validator", "--bundle", str(args.bundle.resolve()), "--archive",
               str(Path(args.archive).resolve())]
    runs = []
    for _ in range(max(1, args.repeat)):
        elapsed, code, lines, last = _run(command, args.root.resolve())
        if code not in (0, 1, 7):
            tail = "\n".join(line for _, line in lines[-20:])
            raise SystemExit(f"{' '.join(command)} failed ({code}):\n{tail}")
        runs.append((elapsed, code, lines, last))
    elapsed, code, lines, last = min(runs, key=lambda run: run[0])
    print(f"command: {' '.join(command)} (in {args.root.resolve()})")
    print(f"load average at the end: {os.getloadavg()[0]:.2f} (1 min); cores: {os.cpu_count()}")
    print(f"wall time: {elapsed:.1f} s (best of {len(runs)}), exit {code}")
    print(f"verdict: {last}")
    for name, seconds in _phases(lines, elapsed):
        print(f"  {seconds:8.1f} s  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
