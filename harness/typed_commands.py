"""Commands and paths as the user would type them in the shell the harness prints them to: paths relative to the
working directory where they lie inside it, and this interpreter by its own path (never a bare `python`, which may be
another interpreter, or none, outside the virtual environment)."""

import os
import shlex
import sys
from pathlib import Path


def shown(path: Path | str) -> str:
    """A path relative to the working directory when it lies inside it (symbolic links kept, so a virtualenv's
    python stays .venv/bin/python)."""
    absolute = Path(os.path.abspath(path))
    try:
        return str(absolute.relative_to(Path(os.path.abspath(Path.cwd()))))
    except ValueError:
        return str(absolute)


def python() -> str:
    return shown(sys.executable)


def command(*words: str | Path) -> str:
    return " ".join(shlex.quote(str(word)) for word in words)


def validator_command(*arguments: str | Path) -> str:
    """The independent validator, run by this interpreter."""
    return command(python(), "-m", "harness.validator", *arguments)
