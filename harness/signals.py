"""SIGTERM as an exception, so that `finally` blocks run: a terminated download or run removes its partial files.

Python's default for SIGTERM ends the process at once, skipping every clean-up. Terminated derives from
BaseException, like KeyboardInterrupt, so no `except Exception` (the runner's per-query guard, say) can
swallow it and carry on.
"""

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

TERMINATED_EXIT = 128 + signal.SIGTERM
INTERRUPTED_EXIT = 128 + signal.SIGINT


class Terminated(BaseException):
    """The process received SIGTERM."""


def _raise(signum: int, frame: FrameType | None) -> None:
    raise Terminated(f"received signal {signal.Signals(signum).name}")


@contextmanager
def sigterm_raises() -> Iterator[None]:
    """Within the block, SIGTERM raises Terminated; an existing handler (the CLI's, a test runner's) is kept."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) not in (
            signal.SIG_DFL, None):
        yield
        return
    signal.signal(signal.SIGTERM, _raise)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
