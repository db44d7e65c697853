"""Command line: `python -m harness build ...`."""

import argparse
import os
import sys
from pathlib import Path

from .build import build_fixture
from .contract import scifact_contract
from .embedders import make_embedder
from .embedders.select import BACKENDS
from .errors import HarnessError


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name)
    return Path(value) if value else None


def add_build_parser(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    build = commands.add_parser("build", help="build the SciFact corpus fixture (documents, queries, vectors)")
    build.add_argument("--out", type=Path, required=True, help="fixture JSON to write")
    build.add_argument("--work-dir", type=Path, required=True, help="downloads and the embedding cache")
    build.add_argument("--archive", type=Path, default=_env_path("SCIFACT_ARCHIVE"),
                       help="local BEIR scifact.zip (default: $SCIFACT_ARCHIVE; else download from BEIR)")
    build.add_argument("--embedder", choices=BACKENDS, default="local")
    build.add_argument("--model", default=None,
                       help="model name (default: $SCIFACT_EMBED_MODEL, else the backend's default)")
    build.add_argument("--allow-unpinned", action="store_true",
                       help="accept payload digests that differ from the pins; recorded as unpinned")
    build.add_argument("--no-progress", action="store_true", help="no progress bar")


def run_build(args: argparse.Namespace) -> int:
    report = build_fixture(
        scifact_contract(), out=args.out, work_dir=args.work_dir, archive=args.archive,
        embedder=make_embedder(args.embedder, args.model), allow_unpinned=args.allow_unpinned,
        progress=not args.no_progress,
    )
    rate = report.embedded / report.seconds if report.embedded else 0.0
    print(
        f"fixture {report.fixture}: {report.documents} documents, {report.queries} queries, "
        f"{report.qrel_pairs} qrel pairs, {report.dimensions}-dimensional vectors; "
        f"{report.embedded} embedded ({rate:.1f}/s), {report.from_cache} from cache; "
        f"{'written' if report.changed else 'unchanged'} in {report.seconds:.1f} s"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    add_build_parser(commands)
    args = parser.parse_args(argv)
    try:
        return {"build": run_build}[args.command](args)
    except HarnessError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
