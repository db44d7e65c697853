"""Compare the artifacts of two runs field by field, setting aside only what differs between any two runs.

    python scripts/compare_run_artifacts.py BEFORE_DIR AFTER_DIR [--split calibration]

Both directories hold `scifact-<mode>-<split>.jsonl` and `.aggregate.json` for every mode. Set aside: the
source digest and git state, timestamps, latency (and so the rows' digest), and the name of the run's store
directory (a receipt names no place; any path left is compared with its run's output directory replaced by a
placeholder). Everything else,
every ranked id, score, lane rank, metric and receipt field, must be equal. Exit 0 when equal, 1 otherwise.
"""

import argparse
import json
import sys
from pathlib import Path
from typing import Any

MODES = ("fts_only", "vector_only", "hybrid")
SET_ASIDE_AGGREGATE = (
    ("per_query_sha256",),
    ("metrics", "latency_ms"),
    ("receipt", "run", "started_at"),
    ("receipt", "run", "finished_at"),
    ("receipt", "source"),
    ("receipt", "ledger", "run_started"),
    ("receipt", "ledger", "freeze"),
    ("receipt", "store", "directory_name"),
)
SET_ASIDE_ROW = (("latency_ms",),)


def _drop(document: dict[str, Any], path: tuple[str, ...]) -> None:
    node: Any = document
    for key in path[:-1]:
        node = node.get(key) if isinstance(node, dict) else None
    if isinstance(node, dict):
        node.pop(path[-1], None)


def _placeholders(value: Any, directories: dict[str, str]) -> Any:
    if isinstance(value, str):
        for directory, name in directories.items():
            value = value.replace(directory, name)
        return value
    if isinstance(value, list):
        return [_placeholders(item, directories) for item in value]
    if isinstance(value, dict):
        return {key: _placeholders(item, directories) for key, item in value.items()}
    return value


def _differences(before: Any, after: Any, where: str = "") -> list[str]:
    if isinstance(before, dict) and isinstance(after, dict):
        found = []
        for key in sorted(set(before) | set(after)):
            found += _differences(before.get(key), after.get(key), f"{where}.{key}")
        return found
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        pairs = enumerate(zip(before, after, strict=True))
        return [d for i, (b, a) in pairs for d in _differences(b, a, f"{where}[{i}]")]
    return [] if before == after else [f"{where.lstrip('.')}: {before!r} != {after!r}"]


def _normalised(directory: Path, mode: str, split: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    aggregate = json.loads((directory / f"scifact-{mode}-{split}.aggregate.json").read_text(encoding="utf-8"))
    rows = [json.loads(line) for line in
            (directory / f"scifact-{mode}-{split}.jsonl").read_text(encoding="utf-8").splitlines()]
    places = {str(directory.resolve()): "<output>"}
    for path in SET_ASIDE_AGGREGATE:
        _drop(aggregate, path)
    for row in rows:
        for path in SET_ASIDE_ROW:
            _drop(row, path)
    return _placeholders(aggregate, places), _placeholders(rows, places)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--split", default="calibration")
    args = parser.parse_args()
    failures = 0
    for mode in MODES:
        (agg_b, rows_b), (agg_a, rows_a) = (_normalised(d, mode, args.split) for d in (args.before, args.after))
        found = _differences(agg_b, agg_a, "aggregate") + _differences(rows_b, rows_a, "rows")
        print(f"{mode:<12} {args.split}: {len(rows_b)} rows, "
              + ("identical apart from what is set aside" if not found else f"{len(found)} difference(s)"))
        for line in found[:20]:
            print(f"    {line}")
        failures += bool(found)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
