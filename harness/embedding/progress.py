"""What a long embedding shows on stderr while it runs.

On a terminal, a bar (tqdm: count, rate, time left). In a log (stderr is not a terminal: CI, `make ... | tee`, a
redirect), whole lines: one when it starts, one every PERIOD_SECONDS with the count, the rate and the time left, and
one when it ends, so a reader of the log never sees minutes of silence.
"""

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol, TextIO

from tqdm import tqdm

PERIOD_SECONDS = 30.0


class Advance(Protocol):
    def update(self, count: int) -> object: ...


class _Silent:
    def update(self, count: int) -> None:
        return None


class LogLines:
    """Start, periodic and end lines for a log; `clock` is injectable so the period can be tested."""

    def __init__(self, total: int, what: str, stream: TextIO, period: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.total, self.what, self.stream, self.clock = total, what, stream, clock
        self.period = PERIOD_SECONDS if period is None else period
        self.done = 0
        self.started = self.last = clock()
        self._say(f"{what}: {total} texts to embed")

    def _say(self, line: str) -> None:
        print(line, file=self.stream, flush=True)

    def _rate(self, elapsed: float) -> float:
        return self.done / elapsed if elapsed > 0 else 0.0

    def update(self, count: int) -> None:
        self.done += count
        now = self.clock()
        if now - self.last < self.period or self.done >= self.total:
            return
        self.last = now
        elapsed = now - self.started
        rate = self._rate(elapsed)
        left = f", about {(self.total - self.done) / rate:.0f} s left" if rate > 0 else ""
        self._say(f"{self.what}: {self.done}/{self.total} texts ({100 * self.done // self.total}%), {elapsed:.0f} s, "
                  f"{rate:.1f} texts/s{left}")

    def close(self) -> None:
        elapsed = self.clock() - self.started
        self._say(f"{self.what}: {self.done}/{self.total} texts in {elapsed:.0f} s ({self._rate(elapsed):.1f} texts/s)")


@contextmanager
def embedding_progress(total: int, what: str, enabled: bool, stream: TextIO | None = None) -> Iterator[Advance]:
    """A bar on a terminal, lines in a log, nothing when disabled or when there is nothing to embed."""
    out = sys.stderr if stream is None else stream
    if not enabled or total <= 0:
        yield _Silent()
        return
    if out.isatty():
        with tqdm(total=total, unit="text", desc=what, file=out, dynamic_ncols=True, mininterval=0.5) as bar:
            yield bar
        return
    lines = LogLines(total, what, out)
    try:
        yield lines
    finally:
        lines.close()
