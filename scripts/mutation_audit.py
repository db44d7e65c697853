"""A mutation audit of the code that decides verdicts: each mutation of `mutations.py` applied alone to a scratch
copy of the tree, the tests chosen for it run, and whether they fail (caught) or pass (survived).

    python scripts/mutation_audit.py [--jobs 2] [--only ID ...] [--folder PATH ...] [--out FILE] [--check]

The working tree is never changed: each job copies it once (a shared clone of HEAD with the uncommitted files laid
over it) under the system's temporary directory, applies one mutation at a time there, and restores the file in a
`finally`. Each mutation's tests run as `python -m pytest -x -q -p no:cacheprovider -p no:randomly TESTS` from the
copy (so the copy's code is imported, in the worker processes too). A mutation whose original text is not found
exactly once is an error. `--check` only checks that every mutation applies. The results are printed as a table,
by folder, and written as JSON to `--out` (default: mutation-audit.json under the system's temporary directory).
Exit 0 when every mutation was caught or stated equivalent, 1 otherwise.
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from queue import Queue

from mutations import MUTATIONS as DECISIONS
from mutations import Mutation
from mutations_publisher import MUTATIONS_PUBLISHER
from mutations_run_files import MUTATIONS_RUN_FILES
from mutations_texts import MUTATIONS_TEXTS

MUTATIONS = DECISIONS + MUTATIONS_TEXTS + MUTATIONS_PUBLISHER + MUTATIONS_RUN_FILES

ROOT = Path(__file__).resolve().parent.parent
PYTEST = ("-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "no:randomly")
TIMEOUT_SECONDS = 900.0


@dataclass(frozen=True)
class Outcome:
    ident: str
    folder: str
    path: str
    status: str  # caught, survived, equivalent (survived, and stated equivalent), error
    seconds: float
    tests: list[str]
    detail: str


def folder_of(mutation: Mutation) -> str:
    return str(Path(mutation.path).parent)


def apply(tree: Path, mutation: Mutation) -> tuple[Path, str] | str:
    """The file and its original text with the mutation written into it, or why it does not apply."""
    target = tree / mutation.path
    if not target.is_file():
        return f"{mutation.path} is not a file"
    text = target.read_text(encoding="utf-8")
    count = text.count(mutation.original)
    if count != 1:
        return f"the original text occurs {count} times in {mutation.path}, not once"
    mutated = text.replace(mutation.original, mutation.replacement)
    if mutated == text:
        return "the replacement is the original"
    _write(target, mutated)
    return target, text


def _write(target: Path, text: str) -> None:
    target.write_text(text, encoding="utf-8")
    for cached in (target.parent / "__pycache__").glob(f"{target.stem}.*.pyc"):  # a stale bytecode cache of the
        cached.unlink(missing_ok=True)  # same size and second would be imported in place of the text


def scratch_tree(parent: Path, index: int) -> Path:
    """A shared clone of HEAD with the working tree's changed and untracked files copied over it."""
    tree = parent / f"tree-{index}"
    subprocess.run(["git", "clone", "--quiet", "--shared", str(ROOT), str(tree)], check=True)
    listed = subprocess.run(["git", "ls-files", "-z", "--modified", "--others", "--exclude-standard"], cwd=ROOT,
                            check=True, capture_output=True).stdout.decode().split("\0")
    deleted = set(subprocess.run(["git", "ls-files", "-z", "--deleted"], cwd=ROOT, check=True,
                                 capture_output=True).stdout.decode().split("\0"))
    for name in filter(None, listed):
        source, copy = ROOT / name, tree / name
        if name in deleted:
            copy.unlink(missing_ok=True)
        elif source.is_file():
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy)
    return tree


def run_tests(tree: Path, tests: tuple[str, ...], basetemp: Path) -> tuple[str, str]:
    """("caught" | "survived", the last lines of pytest's output)."""
    environment = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, *PYTEST, f"--basetemp={basetemp}", *tests]
    process = subprocess.Popen(command, cwd=tree, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return "caught", f"timed out after {TIMEOUT_SECONDS:g} s"
    tail = " | ".join(line for line in output.strip().splitlines()[-3:])
    if process.returncode == 0:
        return "survived", tail
    if process.returncode in (1, 3):  # tests failed, or an error while they ran (an import of the mutant)
        return "caught", tail
    return "error", f"pytest exit {process.returncode}: {tail}"


def audit(tree: Path, mutation: Mutation, basetemp: Path) -> Outcome:
    started = time.monotonic()
    applied = apply(tree, mutation)
    if isinstance(applied, str):
        return Outcome(mutation.ident, folder_of(mutation), mutation.path, "error", 0.0, list(mutation.tests), applied)
    target, original = applied
    try:
        status, detail = run_tests(tree, mutation.tests, basetemp)
    finally:
        _write(target, original)
    if status == "survived" and mutation.equivalent:
        status, detail = "equivalent", mutation.equivalent
    return Outcome(mutation.ident, folder_of(mutation), mutation.path, status, round(time.monotonic() - started, 1),
                   list(mutation.tests), detail)


def table(outcomes: list[Outcome]) -> str:
    lines = [f"{'id':<6} {'status':<10} {'s':>6}  file"]
    lines += [f"{o.ident:<6} {o.status:<10} {o.seconds:>6.1f}  {o.path}" for o in outcomes]
    lines += ["", f"{'folder':<36} {'written':>7} {'run':>4} {'caught':>6} {'survived':>8} {'equiv':>5} {'error':>5}"]
    folders = sorted({o.folder for o in outcomes})
    for folder in [*folders, "all"]:
        mine = [o for o in outcomes if folder in ("all", o.folder)]
        count = Counter(o.status for o in mine)
        lines.append(f"{folder:<36} {len(mine):>7} {len(mine) - count['error']:>4} {count['caught']:>6} "
                     f"{count['survived'] + count['equivalent']:>8} {count['equivalent']:>5} {count['error']:>5}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--jobs", type=int, default=2, help="mutations tested at once, each in its own copy")
    parser.add_argument("--only", nargs="*", default=[], help="mutation ids")
    parser.add_argument("--folder", nargs="*", default=[], help="only the mutations of these folders")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "mutation-audit.json")
    parser.add_argument("--check", action="store_true", help="only check that every mutation applies")
    options = parser.parse_args(argv)
    chosen = [m for m in MUTATIONS if (not options.only or m.ident in options.only)
              and (not options.folder or folder_of(m) in [f.rstrip("/") for f in options.folder])]
    if len({m.ident for m in MUTATIONS}) != len(MUTATIONS):
        print("error: mutation ids repeat", file=sys.stderr)
        return 2
    before = _state()
    work = Path(tempfile.mkdtemp(prefix="mutation-audit-"))
    try:
        if options.check:
            problems = [f"{m.ident}: {p}" for m in chosen if isinstance(p := _dry(m), str)]
            print("\n".join(problems) or f"all {len(chosen)} mutations apply")
            return 1 if problems else 0
        trees: Queue[tuple[Path, Path]] = Queue()
        for index in range(max(1, min(options.jobs, len(chosen)))):
            trees.put((scratch_tree(work, index), work / f"basetemp-{index}"))

        def one(mutation: Mutation) -> Outcome:
            tree, basetemp = trees.get()
            try:
                outcome = audit(tree, mutation, basetemp)
            finally:
                trees.put((tree, basetemp))
            print(f"{outcome.ident:<6} {outcome.status:<10} {outcome.seconds:>6.1f}s  {outcome.detail[-150:]}",
                  flush=True)
            return outcome

        with ThreadPoolExecutor(max_workers=trees.qsize()) as pool:
            outcomes = list(pool.map(one, chosen))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(table(outcomes))
    options.out.write_text(json.dumps([asdict(o) for o in outcomes], indent=1) + "\n", encoding="utf-8")
    print(f"results: {options.out}")
    unchanged = _state() == before
    print("the working tree is as it was" if unchanged else "error: the working tree changed during the audit")
    if not unchanged:
        return 2
    return 0 if all(o.status in ("caught", "equivalent") for o in outcomes) else 1


def _state() -> bytes:
    """The working tree's state against HEAD (`git diff --quiet` when nothing is uncommitted)."""
    return b"".join(subprocess.run(command, cwd=ROOT, check=True, capture_output=True).stdout for command in (
        ["git", "status", "--porcelain"], ["git", "diff", "HEAD"]))


def _dry(mutation: Mutation) -> str | None:
    target = ROOT / mutation.path
    if not target.is_file():
        return f"{mutation.path} is not a file"
    count = target.read_text(encoding="utf-8").count(mutation.original)
    return None if count == 1 else f"the original text occurs {count} times in {mutation.path}, not once"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
