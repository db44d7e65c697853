"""What a receipt or a freeze record says of a local path: a file by its name (its digest, recorded beside it, says
what it is), and a command line with every path that names a place outside the working directory in words."""

import os
from pathlib import Path, PurePosixPath

ELSEWHERE = "[local path]"


def name_of(path: Path | str) -> str:
    """The last component of `path` as the harness used it (an absolute spelling of '.' still has a name)."""
    return Path(os.path.abspath(path)).name


def leaves_here(word: str) -> bool:
    """Whether `word`, read as a path, names a place outside the working directory: absolute, or climbing out."""
    return os.path.isabs(word) or ".." in PurePosixPath(word).parts


def _word(word: str) -> str:
    option, equals, value = word.partition("=")
    if equals and option.startswith("-") and leaves_here(value):
        return f"{option}={ELSEWHERE}/{PurePosixPath(value).name}"
    return f"{ELSEWHERE}/{PurePosixPath(word).name}" if leaves_here(word) else word


def command_in_words(argv: list[str] | tuple[str, ...]) -> list[str]:
    """`argv` with each absolute or climbing path written `[local path]/NAME` (also as the value of `--opt=PATH`)."""
    return [_word(str(word)) for word in argv]
