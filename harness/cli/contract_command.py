"""`scifact-harness contract` (options: harness.cli.parser): declare a collection of the user's own (a BEIR-layout
directory or zip) as a contract file to commit, with the archive it pins beside it."""

import argparse
import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from harness.atomic import write_bytes_atomic
from harness.cli.parsing import paths as cli_paths
from harness.corpus.declared import declare, pack_directory
from harness.typed_commands import harness_command, shown


@contextlib.contextmanager
def directories_for(path: Path) -> Iterator[None]:
    """The directories `path` needs, created for the block and removed again (the deepest first) when it fails: a
    refused collection leaves nothing behind, not even the folder its contract was to go in."""
    missing = [parent for parent in (path.parent, *path.parent.parents) if not parent.exists()]
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        yield
    except BaseException:
        for directory in missing:  # deepest first
            with contextlib.suppress(OSError):
                directory.rmdir()
        raise


def run(args: argparse.Namespace) -> int:
    cli_paths.output_file("--out", args.out)
    if args.dataset_dir is not None:
        cli_paths.existing_directory("--dataset-dir", args.dataset_dir, "pass the directory holding corpus.jsonl, "
                                     "queries.jsonl and qrels/")
    else:
        cli_paths.input_file("--archive", args.archive, "pass the collection's zip (BEIR's layout)")
    with directories_for(args.out):
        if args.dataset_dir is not None:
            # packed aside and declared first: a collection refused leaves no zip behind, and an earlier one stays
            with tempfile.TemporaryDirectory(dir=args.out.parent, prefix=f".{args.name}.") as aside:
                packed = pack_directory(args.dataset_dir, args.name, Path(aside) / f"{args.name}.zip")
                contract = declare(packed, args.name, split=args.split, calibration_count=args.calibration_count)
                archive = args.out.parent / f"{args.name}.zip"
                os.replace(packed, archive)
        else:
            archive = args.archive
            contract = declare(archive, args.name, split=args.split, calibration_count=args.calibration_count)
        write_bytes_atomic(args.out, (json.dumps(contract, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    shape = contract["shape"]
    print(f"contract {args.out}: {contract['name']}, {shape['documents']} documents, {shape['test_queries']} judged "
          f"queries, {shape['test_qrel_pairs']} judgements; calibration {contract['calibration_count']}; archive "
          f"{archive} ({contract['source_archive']['sha256']})")
    beside = archive.parent == args.out.parent and archive.name == f"{args.name}.zip"  # found there by every command
    build = harness_command("build", "--contract", shown(args.out), *(() if beside else ("--archive", shown(archive))),
                            "--out", f"work-dir/{args.name}-corpus.json", "--work-dir", "work-dir")
    print(f"commit the contract and keep the archive; then: {build}")
    return 0
