"""The harness's side of a system's worker process: start it, ask it, stop it, and name every way it can fail.

Every request has a deadline, so a system that hangs ends in an error, never in a wait. A process that ends, hangs
or answers off the protocol while it runs the system's code is the system's fault (SystemProcessError); one that
fails in the harness's own code is the harness's (WorkerFault). A process is always reaped: when it is closed, on
any failure or interruption while it is asked, and at the latest when its handle is collected or the interpreter
exits. The worker itself ends when its input closes or the harness's process is gone.
"""

import contextlib
import os
import select
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections import deque
from dataclasses import dataclass
from typing import IO, Any

import numpy as np
from numpy.typing import NDArray

from harness.errors import INTERNAL, HarnessError
from harness.systems.plugin import wire
from harness.systems.plugin.environment import worker_environment
from harness.systems.plugin.loading import SystemSpecError
from harness.systems.plugin.worker import READY
from harness.systems.protocol import SearchFailed, SystemLost

WORKER = [sys.executable, "-m", "harness.systems.plugin.worker"]
TAIL_LINES = 12
EXIT_GRACE_SECONDS = 10.0
HARNESS_ONLY = {"start", "loaded"}  # requests answered by the harness's code alone
WHAT = {"start": "starting", "load": "importing and making the system", "build": "build()", "open": "open()",
        "describe": "configuration(), engine() and the account of what it loaded", "parts": "parts()",
        "attested": "attested()", "search": "search()", "close": "close()", "loaded": "the account of what it loaded",
        "exit": "its exit"}


@dataclass(frozen=True)
class Timeouts:
    start: float = 120.0  # the interpreter and the harness's own modules
    setup: float = 3600.0  # importing the system, build, open
    call: float = 600.0  # the system's other calls
    search: float = 300.0  # one search

    def of(self, op: str) -> float:
        return {"start": self.start, "load": self.setup, "build": self.setup, "open": self.setup,
                "search": self.search}.get(op, self.call)


TIMEOUTS = Timeouts()  # read when a worker starts


class PluginError(HarnessError):
    """The system refused or failed a call (build, open, configuration, ...): its own exception, named."""


class SystemProcessError(SystemLost):
    """The system's process ended, hung or wrote off the protocol while it ran the system's code."""


class WorkerFault(SystemLost):
    """The harness's own code failed in a system's worker process."""

    exit_code = INTERNAL


class _Timeout(Exception):
    pass


def _echo(stream: IO[bytes], tail: deque[str]) -> None:
    """The worker's stderr (the system's prints and logs) goes on to the harness's, and its last lines are kept."""
    try:
        for line in iter(stream.readline, b""):
            tail.append(line.decode("utf-8", "replace").rstrip())
            with contextlib.suppress(OSError):
                os.write(2, line)
        stream.close()
    except (OSError, ValueError):
        return


def _reap(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        try:
            if process.stdin is not None:
                process.stdin.close()  # the worker ends at the end of its input
            process.wait(timeout=EXIT_GRACE_SECONDS)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
            process.wait()
    for stream in (process.stdin, process.stdout):
        if stream is not None:
            stream.close()


class Worker:
    """One worker process for the system `spec`, with the declared environment variables."""

    def __init__(self, spec: str, declared: tuple[str, ...]) -> None:
        self.spec, self.timeouts, self.tail = spec, TIMEOUTS, deque[str](maxlen=TAIL_LINES)
        self.process = subprocess.Popen(WORKER, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, env=worker_environment(declared), close_fds=True)
        assert self.process.stdin is not None and self.process.stdout is not None and self.process.stderr is not None
        self._input, self._output = self.process.stdin.fileno(), self.process.stdout.fileno()
        os.set_blocking(self._input, False)
        threading.Thread(target=_echo, args=(self.process.stderr, self.tail), daemon=True).start()
        self._reaper = weakref.finalize(self, _reap, self.process)
        self._buffer = bytearray()
        self.lost: str | None = None
        ready = self._exchange("start", None)
        if ready.get("ready") != READY:
            raise self._stopped(WorkerFault(f"the worker process for system {self.spec!r} greeted with {ready!r}"))

    @property
    def pid(self) -> int:
        return self.process.pid

    def ask(self, op: str, request: dict[str, Any] | None = None,
            arrays: dict[str, NDArray[np.float32]] | None = None) -> dict[str, Any]:
        """The worker's answer to `op`; a failure of the system's call is PluginError (SearchFailed for search)."""
        if self.lost is not None:
            raise SystemProcessError(f"system {self.spec!r}: its process is gone ({self.lost}); nothing more can be "
                                     "asked of it")
        reply = self._exchange(op, wire.encode({"op": op, **(request or {})}, arrays))
        if reply.get("ok") is True:
            return reply
        error = str(reply.get("error"))
        if reply.get("fault") == "system" and op == "search":
            elapsed = reply.get("elapsed_ns")
            raise SearchFailed(error, elapsed / 1e6 if isinstance(elapsed, int) else None)
        if reply.get("fault") == "system":
            raise PluginError(f"system {self.spec!r}: {WHAT.get(op, op)} failed: {error}")
        if reply.get("fault") == "spec":
            raise SystemSpecError(error)
        raise self._stopped(WorkerFault(f"a fault of the harness in the worker process of system {self.spec!r}, "
                                        f"during {WHAT.get(op, op)}: {error}; report it"))

    def _exchange(self, op: str, data: bytes | None) -> dict[str, Any]:
        timeout = self.timeouts.of(op)
        deadline = time.monotonic() + timeout
        try:
            if data is not None:
                self._write(data, deadline)
            reply, arrays = wire.decode(lambda size: self._read(size, deadline), wire.REPLY_LIMIT)
            if arrays or not isinstance(reply.get("ok"), bool):
                raise wire.WireError(f"an answer that is not the protocol's: {str(reply)[:200]}")
            return reply
        except (_Timeout, wire.ChannelClosed, wire.WireError, BrokenPipeError) as exc:
            raise self._stopped(self._named(op, exc, timeout)) from exc
        except BaseException:  # Ctrl-C, SIGTERM: the worker is stopped with the harness's work
            self._stopped(None)
            raise

    def _write(self, data: bytes, deadline: float) -> None:
        view, poller = memoryview(data), select.poll()
        poller.register(self._input, select.POLLOUT)
        while view:
            if not poller.poll(max(0.0, deadline - time.monotonic()) * 1000):
                raise _Timeout()
            try:
                view = view[os.write(self._input, view[: 1 << 20]):]
            except BlockingIOError:
                continue

    def _read(self, size: int, deadline: float) -> bytes:
        poller = select.poll()
        poller.register(self._output, select.POLLIN)
        while len(self._buffer) < size:
            if not poller.poll(max(0.0, deadline - time.monotonic()) * 1000):
                raise _Timeout()
            chunk = os.read(self._output, max(size - len(self._buffer), 1 << 16))
            if not chunk:
                raise wire.ChannelClosed("the worker's output ended")
            self._buffer += chunk
        data = bytes(self._buffer[:size])
        del self._buffer[:size]
        return data

    def _named(self, op: str, exc: BaseException, timeout: float) -> SystemLost:
        what = WHAT.get(op, op)
        self._stopped(None)
        if isinstance(exc, _Timeout):
            problem = (f"did not answer {what} within {timeout:g} s, so its process was stopped: make {what} finish "
                       "(a hang, or far slower than the harness waits)")
        elif isinstance(exc, wire.WireError):
            problem = (f"answered {what} with bytes off the harness's protocol ({exc}): something in its process "
                       "wrote to the protocol's file descriptors; print to stdout or stderr instead, which the worker "
                       "keeps apart")
        else:
            code = self.process.returncode
            how = f"killed by {signal.Signals(-code).name}" if code is not None and code < 0 else f"exit code {code}"
            problem = (f"its process ended during {what} ({how}): the system's code ended it (os._exit, sys.exit, a "
                       "crash in native code, or memory)")
        last = f"; its last output: {' | '.join(self.tail)}" if self.tail else ""
        if op in HARNESS_ONLY:
            return WorkerFault(f"the worker process of system {self.spec!r}, running the harness's code only, "
                               f"{problem.removeprefix('its process ')}{last}; a fault of the harness or its "
                               "installation: report it")
        return SystemProcessError(f"system {self.spec!r}{':' if problem.startswith('its ') else ''} {problem}{last}")

    def _stopped(self, error: SystemLost | None) -> SystemLost:
        """Stop the process (at once) and reap it; `error` is returned to be raised."""
        self.lost = str(error) if error is not None else (self.lost or "stopped")
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self._reaper()
        return error if error is not None else SystemProcessError(f"system {self.spec!r}: stopped")

    def close(self) -> None:
        """End the worker: the system lets go of what it holds, the process exits and is reaped."""
        if self.lost is None and self.process.poll() is None:
            self.timeouts = Timeouts(call=EXIT_GRACE_SECONDS)
            with contextlib.suppress(HarnessError, SearchFailed):
                self.ask("exit")
        self.lost = self.lost or "closed"
        self._reaper()
