"""The way to the suite's tests when the harness is installed inside the directory pytest collects (a venv in the
user's repository). pytest collects a path that lies under another of its arguments through that argument's tree,
where it skips a virtualenv and every directory starting with a dot (`.venv`): the suite would be silently left
out. Along the way from the hidden directory down to the suite, exactly that way is collected; nothing else inside
the hidden directory is (no other package's tests)."""

from pathlib import Path

import pytest

HIDDEN = pytest.StashKey[Path | None]()


def hidden_directory(suite: Path, args: list[str], invocation: Path) -> Path | None:
    """The directory just below a directory argument on the way to `suite`, when the suite lies under one."""
    for arg in args:
        directory = (invocation / arg).resolve()
        if directory != suite and directory.is_dir() and suite.is_relative_to(directory):
            below = directory / suite.relative_to(directory).parts[0]
            # only where pytest would skip it: a virtualenv, or a directory its norecursedirs' '.*' matches
            return below if below.name.startswith(".") or (below / "pyvenv.cfg").is_file() else None
    return None


def ignore(collection_path: Path, suite: Path, hidden: Path | None) -> bool | None:
    """False (collect) on the way from `hidden` to the suite, True (skip) for anything else inside `hidden`, None
    (pytest decides) elsewhere and inside the suite."""
    if hidden is None:
        return None
    path = collection_path.resolve()
    if path.is_relative_to(suite) and path != suite:
        return None
    if not path.is_relative_to(hidden):
        return None
    return collection_path.is_symlink() or not suite.is_relative_to(path)  # a link to the way (lib64) is a second way
