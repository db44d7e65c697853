"""Commands and paths as the user would type them in the shell the harness prints them to: paths relative to the
working directory where they lie inside it, and each tool (the harness, its validator, pytest) in the form this
process was started in. Started by a console script (`scifact-harness`, `scifact-validate`, `pytest`), the next
command names the tool's console script beside it: by its bare name when PATH finds that very script (the user typed
the bare name), else by its path. Started any other way (`python -m harness`, `python -m pytest`), it names this
interpreter by its path with `-m` (never a bare `python`, which may be another interpreter, or none, outside the
virtual environment). sys.argv[0] tells which: a console script's path, or a `__main__.py`."""

import os
import shlex
import shutil
import sys
from pathlib import Path

SCRIPTS = {"harness": "scifact-harness", "validator": "scifact-validate", "pytest": "pytest"}
MODULES = {"harness": "harness", "validator": "harness.validator", "pytest": "pytest"}
STARTERS = frozenset({*SCRIPTS.values(), "py.test"})  # the console scripts a process of the harness starts from


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


def _found_on_path(path: str) -> bool:
    """Whether PATH finds the very file `path` by its bare name."""
    found = shutil.which(os.path.basename(path))
    try:
        return found is not None and os.path.samefile(found, path)
    except OSError:
        return False


def tool(name: str, *, absolute: bool = False) -> list[str]:
    """The words that start `name` ("harness", "validator" or "pytest") as this process was started; `absolute`:
    a path by its absolute form (for a command printed after a `cd`)."""
    started = sys.argv[0] if sys.argv else ""
    if os.path.basename(started) in STARTERS:
        beside = os.path.join(os.path.dirname(os.path.abspath(started)), SCRIPTS[name])
        if os.path.isfile(beside) and os.access(beside, os.X_OK):
            typed_bare = os.path.isabs(started) and _found_on_path(started)
            if typed_bare and _found_on_path(beside):
                return [SCRIPTS[name]]
            return [os.path.abspath(beside) if absolute else shown(beside)]
    return [os.path.abspath(sys.executable) if absolute else python(), "-m", MODULES[name]]


def harness_command(*arguments: str | Path) -> str:
    """The harness (`scifact-harness`, or `python -m harness`) with these arguments."""
    return command(*tool("harness"), *arguments)


def pytest_command(*arguments: str | Path) -> str:
    """pytest (the `pytest` script, or `python -m pytest`) with these arguments."""
    return command(*tool("pytest"), *arguments)


def validator_command(*arguments: str | Path) -> str:
    """The independent validator (`scifact-validate`, or `python -m harness.validator`) with these arguments."""
    return command(*tool("validator"), *arguments)
