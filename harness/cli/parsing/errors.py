"""How a command ends when it fails: a line naming the thing, the problem and the fix, and a distinct exit code.

    2  usage or input the user can fix      3  refused by a gate      4  the environment
    5  a fault of the harness itself        6  a run written, but the system under test failed queries
    130 / 143  interrupted (Ctrl-C) / terminated (SIGTERM)

Errors the harness raises on purpose carry their code (`harness.errors`); operating-system errors are
classed by errno. Anything else is a fault: its traceback is shown with --debug.
"""

import argparse
import errno
import sys
import traceback
from typing import NoReturn

from harness.errors import ENVIRONMENT, INTERNAL, USAGE, HarnessError
from harness.signals import INTERRUPTED_EXIT, TERMINATED_EXIT, Terminated

_OS_ERRORS: dict[int, tuple[int, str]] = {
    errno.EACCES: (ENVIRONMENT, "this user may not use it: change its permissions, or choose a path you can write"),
    errno.EPERM: (ENVIRONMENT, "the system does not allow it (permissions, or an immutable file): change that, or "
                               "choose another path"),
    errno.EROFS: (ENVIRONMENT, "the file system is read-only: choose a path on a writable one"),
    errno.ENOSPC: (ENVIRONMENT, "the disk is full: free some space, or choose a path on another disk"),
    errno.EDQUOT: (ENVIRONMENT, "the disk quota is used up: free some space, or choose another path"),
    errno.EIO: (ENVIRONMENT, "the disk reported an I/O error: check the disk"),
    errno.EISDIR: (USAGE, "it is a directory where a file is needed: name a file"),
    errno.ENOTDIR: (USAGE, "part of the path is a file where a directory is needed: choose another path"),
    errno.ENOENT: (USAGE, "it does not exist: check the path"),
    errno.EEXIST: (USAGE, "it already exists: move it away, or choose another path"),
    errno.ENAMETOOLONG: (USAGE, "the name is too long: choose a shorter path"),
    errno.ELOOP: (USAGE, "its symbolic links loop: fix the links, or choose another path"),
}


def describe(exc: BaseException) -> tuple[str, int]:
    """The message (without 'error: ') and the exit code for `exc`."""
    if isinstance(exc, HarnessError):
        return str(exc), exc.exit_code
    if isinstance(exc, Terminated):
        return (f"terminated ({exc}): partial files were removed and nothing incomplete was kept; rerun to start "
                "again", TERMINATED_EXIT)
    if isinstance(exc, KeyboardInterrupt):
        return ("interrupted: partial files were removed and nothing incomplete was kept; rerun to start again",
                INTERRUPTED_EXIT)
    if isinstance(exc, OSError) and exc.errno is not None:
        names = " -> ".join(str(name) for name in (exc.filename, exc.filename2) if name is not None)
        code, fix = _OS_ERRORS.get(exc.errno, (ENVIRONMENT, "check the path, its permissions and the disk"))
        return f"{names or 'a file'}: {exc.strerror or exc}; {fix}", code
    return (f"internal error ({type(exc).__name__}: {exc}); this is a fault of the harness, not of your input: "
            "rerun with --debug for the traceback and report it", INTERNAL)


def report_failure(exc: BaseException, *, debug: bool) -> int:
    """Print the failure on stderr (the traceback first with --debug); return the exit code."""
    if debug:
        traceback.print_exception(exc, file=sys.stderr)
    message, code = describe(exc)
    summary, *details = message.splitlines() or [""]
    for line in details:  # a refusal that lists what it found (the bundle's failing checks) ends in its summary
        print(line, file=sys.stderr)
    print(f"error: {summary}", file=sys.stderr, flush=True)
    return code


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error ends in two lines (the error, then where the usage is) instead of the usage."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE, f"error: {self.prog}: {message}\nusage: {self.prog} --help\n")
