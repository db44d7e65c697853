"""The validator's command line: paths checked before any work, and a usage error in two lines.

Exit codes (docs/exit-codes.md, one table with the harness's): 0 eligible for a claim, 1 a check failed, 2 usage
(bad arguments, an aggregate, --json, --store-dir or --archive path of the wrong kind or missing, a report that could
not be written), 4 the environment, 5 the validator itself failed (no verdict), 7 nothing failed but something could
not be verified.
"""

import argparse
import os
from pathlib import Path
from typing import NoReturn

ELIGIBLE, FAILED, USAGE, ENVIRONMENT, FAULT, NOT_VERIFIED = 0, 1, 2, 4, 5, 7


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(USAGE, f"error: {self.prog}: {message}\nusage: {self.prog} --help\n")


def path_argument(value: str) -> Path:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise argparse.ArgumentTypeError(f"{value!a} is not valid UTF-8; rename it, or choose a UTF-8 path") from None
    if not value:
        raise argparse.ArgumentTypeError("an empty path; name a file or directory")
    return Path(os.path.abspath(value))


def input_problem(inputs: list[tuple[str, Path | None]]) -> str | None:
    """What is wrong with the files to validate (AGGREGATE, ROWS, --comparison) before any work starts, if anything."""
    for name, path in inputs:
        if path is not None and not path.is_file():
            what = "is a directory" if path.is_dir() else "does not exist"
            return f"{name} {path} {what}; name the file to validate"
    return None


def subjects_of(inputs: list[Path]) -> tuple[list[tuple[Path, Path | None]], str | None]:
    """The positional arguments as (aggregate, rows or None): a .jsonl file is the rows of the aggregate before it."""
    subjects: list[tuple[Path, Path | None]] = []
    for path in inputs:
        if path.suffix != ".jsonl":
            subjects.append((path, None))
        elif not subjects or subjects[-1][1] is not None:
            return [], (f"{path} is a rows file (.jsonl) with no aggregate before it: name each AGGREGATE first, then "
                        "its ROWS if they are not the ones it names")
        else:
            subjects[-1] = (subjects[-1][0], path)
    return subjects, None


def usage_problem(store_dir: Path | None, report: Path | None, archive: Path | None = None,
                  several: bool = False) -> str | None:
    """What is wrong with --store-dir, --json or --archive before any validation starts, if anything; with
    `several` aggregates, --json names a directory."""
    if archive is not None and not archive.is_file():
        return (f"--archive {archive} {'is a directory' if archive.is_dir() else 'does not exist'}; pass the "
                "dataset's zip archive (e.g. scifact.zip)")
    if store_dir is not None and not store_dir.is_dir():
        return f"--store-dir {store_dir} is not a directory; pass the directory that holds the run's store.json"
    if report is not None and several:
        if not report.is_dir():
            return (f"--json {report} is not a directory: with several aggregates, name an existing directory; each "
                    "report is written there as NAME.validation.json")
    elif report is not None:
        if report.is_dir():
            return f"--json {report} is a directory; name the report file to write, e.g. {report / 'report.json'}"
        if not report.parent.is_dir():
            return f"--json {report}: {report.parent} is not a directory; choose a file in an existing directory"
    return None
