"""One measured phase in a process of its own (its peak RSS is the phase's): the synthetic corpus is generated
first, then the phase runs; the last line of stdout is its figures as JSON.

    python -m benchmarks.scale.child PHASE SYSTEM SIZE SEED QUERIES WORK_DIR
"""

import json
import sys
import time
from pathlib import Path

from benchmarks.scale import phases
from benchmarks.scale.replay import replay
from benchmarks.scale.synthetic import generate

PHASES = ("corpus", "build", "query", "replay")  # corpus: only generated and held, the baseline


def main(argv: list[str]) -> int:
    phase, system, size, seed, queries, work = argv
    if phase not in PHASES or system not in phases.SYSTEMS:
        print(f"unknown phase {phase!r} or system {system!r}: phases {PHASES}, systems {phases.SYSTEMS}",
              file=sys.stderr)
        return 2
    started = time.perf_counter()
    corpus = generate(int(size), seed=int(seed), queries=int(queries))
    figures: dict[str, object] = {"generate_seconds": time.perf_counter() - started}
    work_dir = Path(work)
    store, rows = work_dir / "store", work_dir / "rows"
    if phase == "corpus":
        pass
    elif phase == "build":
        figures.update(phases.build(system, corpus, store))
    elif phase == "query":
        def checkpoint(done: dict[str, object]) -> None:
            (work_dir / f"{phase}.partial.json").write_text(json.dumps({**figures, **done}), encoding="utf-8")

        figures.update(phases.query(system, corpus, store, rows if system == "builtin" else None, checkpoint))
    else:
        figures.update(replay(corpus, store, rows, phases.TOP_K))
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
