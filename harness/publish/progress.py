"""What a long publishing step shows while it runs, on stderr: a bar of its stages on a terminal, else one line per
stage, so a bundle that takes minutes never sits silent."""

import sys
import time
from types import TracebackType
from typing import Any


class Stages:
    """`with Stages("bundle", 6) as stages: stages.next("validating ...")`."""

    def __init__(self, what: str, total: int) -> None:
        self.what, self.total, self.done = what, total, 0
        self.started = time.monotonic()
        self.bar: Any = None

    def __enter__(self) -> "Stages":
        if sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=self.total, desc=self.what, unit="stage", file=sys.stderr, leave=False)
        return self

    def next(self, stage: str) -> None:
        """A new stage begins."""
        if self.bar is not None:
            if self.done:
                self.bar.update(1)
            self.bar.set_postfix_str(stage)
        else:
            print(f"{self.what}: {stage} ({self.done + 1}/{self.total}, {time.monotonic() - self.started:.0f} s)",
                  file=sys.stderr, flush=True)
        self.done += 1

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self.bar is not None:
            self.bar.update(max(0, self.done - self.bar.n))
            self.bar.close()
