"""How the validator was started, so that its usage and hints name it the same way: the `scifact-validate` console
script by its bare name when PATH finds that very script (the user typed the bare name), else by the path it was
typed by; started any other way (`python -m harness.validator`), this interpreter by its path with `-m`. Its own
small rule: the harness has one of its own (harness.typed_commands), and the validator shares no code with it."""

import os
import shlex
import shutil
import sys

SCRIPT = "scifact-validate"
MODULE = "harness.validator"


def _typed(path: str) -> str:
    """A path relative to the working directory when it lies inside it (symbolic links kept), else absolute."""
    absolute, here = os.path.abspath(path), os.path.abspath(os.getcwd())
    return os.path.relpath(absolute, here) if absolute.startswith(here.rstrip(os.sep) + os.sep) else absolute


def _found_on_path(path: str) -> bool:
    found = shutil.which(os.path.basename(path))
    try:
        return found is not None and os.path.samefile(found, path)
    except OSError:
        return False


def validator_name() -> str:
    """The words that start this validator again, as it was started (sys.argv[0]: the console script, or a
    `__main__.py`)."""
    started = sys.argv[0] if sys.argv else ""
    if os.path.basename(started) == SCRIPT:
        return SCRIPT if os.path.isabs(started) and _found_on_path(started) else shlex.quote(_typed(started))
    return f"{shlex.quote(_typed(sys.executable))} -m {MODULE}"
