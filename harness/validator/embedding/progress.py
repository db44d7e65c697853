"""What a long re-embedding shows while it runs, on stderr: a bar on a terminal (tqdm, which the model's libraries
bring), else one line when it starts and one when it ends. A handful of texts (a sample) shows nothing."""

import sys
import time
from collections.abc import Callable
from typing import Any

SHOWN_FROM = 200  # texts


def shown(total: int) -> Callable[[int], None] | None:
    """A progress callback for `total` texts (told how many each batch embedded), or None for a few."""
    if total < SHOWN_FROM:
        return None
    if sys.stderr.isatty():
        from tqdm import tqdm

        bar: Any = tqdm(total=total, desc="validator: re-embedding", unit="text", file=sys.stderr, leave=False)

        def advance(count: int) -> None:
            bar.update(count)
            if bar.n >= total:
                bar.close()
        return advance
    started, done = time.monotonic(), [0]
    print(f"validator: re-embedding {total} texts with the verifier's model (minutes on a busy machine)",
          file=sys.stderr, flush=True)

    def count(embedded: int) -> None:
        done[0] += embedded
        if done[0] >= total:
            print(f"validator: re-embedded {total} texts in {time.monotonic() - started:.0f} s", file=sys.stderr,
                  flush=True)
    return count
