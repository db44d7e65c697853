"""A system's worker process: `python -m harness.systems.plugin.worker`, started by the harness
(harness.systems.plugin.client), never by hand.

The protocol (harness.systems.plugin.wire) keeps the process's original stdin and stdout. Before anything of the
system is imported, the system's stdin becomes /dev/null and its stdout the process's stderr, so nothing it prints,
from Python or from native code, reaches the protocol. The worker ignores Ctrl-C (the harness decides when it ends,
and stops it) and ends by itself when its input closes or the harness's process is gone.
"""

import os
import signal
import sys
import threading
import time
from typing import BinaryIO

from harness.systems.plugin import wire
from harness.systems.plugin.host import Host

READY = "scifact-harness system worker 1"
PARENT_POLL_SECONDS = 0.5


def _claim_channel() -> tuple[BinaryIO, BinaryIO]:
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return requests, replies


def _watch_parent(parent: int) -> None:
    """End the process when the harness's is gone (killed outright, it closes nothing), whatever the system does."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(3)
    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _send(replies: BinaryIO, reply: dict[str, object]) -> None:
    try:
        data = wire.encode(reply)
    except (TypeError, ValueError) as exc:
        data = wire.encode({"ok": False, "fault": "harness", "error": f"an answer that is not JSON: {exc}"})
    replies.write(data)
    replies.flush()


def main() -> int:
    requests, replies = _claim_channel()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _watch_parent(os.getppid())
    read = wire.stream_reader(requests)
    host = Host()
    _send(replies, {"ok": True, "ready": READY})
    try:
        while True:
            try:
                request, arrays = wire.decode(read, wire.REQUEST_LIMIT)
            except wire.ChannelClosed:
                return 0
            except wire.WireError as exc:
                _send(replies, {"ok": False, "fault": "harness", "error": f"a request off the protocol: {exc}"})
                return 1
            _send(replies, host.handle(request, arrays))
            if request.get("op") == "exit":
                return 0
    finally:
        host.shutdown()


if __name__ == "__main__":
    sys.exit(main())
