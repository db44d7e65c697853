"""The download's overall deadline: --download-deadline, else $SCIFACT_DOWNLOAD_DEADLINE, else the default (no
network library imported: the command line's parser names the variable)."""

import os

from harness.errors import HarnessError

DEFAULT_DEADLINE = 900.0  # seconds for the whole transfer: 2.8 MB at 3 KB/s
DEADLINE_VARIABLE = "SCIFACT_DOWNLOAD_DEADLINE"


def deadline_seconds(value: str | None = None) -> float:
    """The overall deadline: `value` (from the command line), else $SCIFACT_DOWNLOAD_DEADLINE, else the default."""
    text = value if value is not None else os.environ.get(DEADLINE_VARIABLE)
    if not text:
        return DEFAULT_DEADLINE
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not seconds > 0 or seconds == float("inf"):
        raise HarnessError(f"download deadline {text!r} is not a positive number of seconds "
                           f"(--download-deadline or {DEADLINE_VARIABLE}); e.g. 900")
    return seconds
