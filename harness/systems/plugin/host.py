"""Inside a system's worker process: the requests of the harness, answered by the system.

Each answer says whose fault a failure is: `system` (the system's own code raised, or answered something that is
not a ranking), `spec` (--system names no usable system) or `harness` (this code failed).
"""

import json
import operator
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from harness.systems.plugin.api import Corpus, LaneStatistics, Result, RetrievalSystem
from harness.systems.plugin.bound import environment_digests, loaded_code
from harness.systems.plugin.loading import SystemSpecError, declared_environment, load_plugin
from harness.systems.source import package_of, source_record, source_root

Reply = dict[str, Any]
REQUESTS = {"load", "build", "open", "describe", "loaded", "parts", "attested", "search", "close", "exit"}
Arrays = dict[str, NDArray[np.float32]]


class SystemRaised(Exception):
    """The system's own code raised, or answered what the interface does not allow."""

    def __init__(self, error: str, **extra: Any) -> None:
        super().__init__(error)
        self.extra = extra


def _call(function: Callable[..., Any], *args: Any) -> Any:
    try:
        return function(*args)
    except Exception as exc:
        raise SystemRaised(f"{type(exc).__name__}: {exc}") from exc


def _json(what: str, value: Any) -> Any:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise SystemRaised(f"{what} must return JSON values only ({type(exc).__name__}: {exc})") from exc
    return value


def _answer(results: object, mode: str) -> list[dict[str, Any]]:
    """The ranking as it crosses to the harness, which checks it against the rules of search (rules.py)."""
    form = ("return a list of harness.systems.plugin.Result(doc_id, score), best first, with lanes (a hybrid's) "
            "{'lexical': (rank, score), 'dense': (rank, score)}")
    if not isinstance(results, list):
        raise SystemRaised(f"search({mode!r}) returned {type(results).__name__}, not a list of Result: {form}")
    stray = next((i for i, r in enumerate(results, start=1) if not isinstance(r, Result)), None)
    if stray is not None:
        raise SystemRaised(f"search({mode!r}) returned {type(results[stray - 1]).__name__} at rank {stray}, not a "
                           f"Result: {form}")
    try:
        return [{"doc_id": r.doc_id if isinstance(r.doc_id, str) else repr(r.doc_id), "score": _number(r.score),
                 "lanes": {str(name): [None if rank is None else operator.index(rank),
                                       None if score is None else _number(score)]
                           for name, (rank, score) in dict(r.lanes).items()}} for r in results]
    except (TypeError, ValueError) as exc:
        raise SystemRaised(f"search({mode!r}) returned a Result whose score is not a number, or a lane that is not "
                           f"an (integer rank, score) pair ({exc}): {form}") from exc


def _statistics(results: object, mode: str) -> dict[str, Any] | None:
    """Each lane's statistics, when the answer is a Ranking that carries them (a convex hybrid's)."""
    statistics = getattr(results, "statistics", None)
    if not statistics:
        return None
    form = ("Ranking(results, statistics={'lexical': LaneStatistics(...), 'dense': LaneStatistics(...)}), as fuse "
            "returns")
    if not isinstance(statistics, dict) or not all(isinstance(s, LaneStatistics) for s in statistics.values()):
        raise SystemRaised(f"search({mode!r}) returned statistics {statistics!r}: {form}")
    try:
        return {str(lane): {"candidates": operator.index(s.candidates),
                            **{key: None if value is None else _number(value) for key, value in s.record().items()
                               if key != "candidates"}} for lane, s in statistics.items()}
    except (TypeError, ValueError) as exc:
        raise SystemRaised(f"search({mode!r}) returned lane statistics that are not an integer count and numbers "
                           f"({exc}): {form}") from exc


def _number(value: object) -> float:
    if isinstance(value, bool | str | bytes):
        raise TypeError(f"{value!r} is not a number")
    return float(value)  # type: ignore[arg-type]


class Host:
    def __init__(self) -> None:
        self._plugin: RetrievalSystem | None = None
        self.environment: tuple[str, ...] = ()
        self.holding = False  # opened or searched since the last close()

    @property
    def plugin(self) -> RetrievalSystem:
        if self._plugin is None:
            raise RuntimeError("the system was asked before it was loaded")
        return self._plugin

    def handle(self, request: dict[str, Any], arrays: Arrays) -> Reply:
        op = request.get("op")
        handler: Callable[[dict[str, Any], Arrays], Reply] | None = getattr(self, f"_{op}") if op in REQUESTS \
            else None
        try:
            if handler is None:
                raise ValueError(f"no such request {op!r}")
            self.holding = self.holding or op in {"build", "open", "search"}
            reply = handler(request, arrays)
            json.dumps(reply)
            return {"ok": True, **reply}
        except SystemRaised as exc:
            return {"ok": False, "fault": "system", "error": str(exc), **exc.extra}
        except SystemSpecError as exc:
            return {"ok": False, "fault": "spec", "error": str(exc)}
        except Exception as exc:
            return {"ok": False, "fault": "harness", "error": f"{type(exc).__name__}: {exc}"}

    def _load(self, request: dict[str, Any], arrays: Arrays) -> Reply:
        sys.path[:] = [str(p) for p in request["sys_path"]]
        option = str(request["option"])
        self._plugin = plugin = load_plugin(str(request["spec"]), dict(request["options"]), option)
        self.environment = declared_environment(str(request["spec"]), plugin, option)
        return {"name": plugin.name, "version": plugin.version, "modes": list(plugin.modes),
                "environment": list(self.environment)}

    def _corpus(self, request: dict[str, Any], arrays: Arrays) -> Corpus:
        return Corpus(tuple(request["doc_ids"]), tuple(request["titles"]), tuple(request["texts"]), arrays["vectors"],
                      str(request["namespace"]), str(request["fixture_sha256"]))

    def _build(self, request: dict[str, Any], arrays: Arrays) -> Reply:
        changed = _call(self.plugin.build, self._corpus(request, arrays), Path(request["directory"]))
        return {"changed": bool(changed)}

    def _open(self, request: dict[str, Any], arrays: Arrays) -> Reply:
        _call(self.plugin.open, self._corpus(request, arrays), Path(request["directory"]))
        return {}

    def _describe(self, request: dict[str, Any], arrays: Arrays) -> Reply:
        plugin = self.plugin
        configuration = _json("configuration()", _call(plugin.configuration))
        if not isinstance(configuration, dict):
            raise SystemRaised(f"configuration() must return a dict, not {type(configuration).__name__}")
        engine = getattr(plugin, "engine", None)
        root, files = _call(lambda: source_root(plugin))
        source = _call(lambda: source_record(root, files))
        loaded = loaded_code(root)
        return {"configuration": configuration, "package": _call(package_of, plugin), "source": source,
                "engine": _json("engine()", dict(_call(engine))) if callable(engine)
                else {"name": plugin.name, "version": plugin.version},
                "declarations": _json("declarations", dict(getattr(plugin, "declarations", {}) or {})),
                "modules": loaded.modules, "distributions": loaded.distributions,
                "distribution_files": loaded.distribution_files, "environment": environment_digests(self.environment)}

    def _loaded(self, request: dict[str, Any], arrays: Arrays) -> Reply:
        loaded = loaded_code(_call(lambda: source_root(self.plugin))[0])
        return {"modules": loaded.modules, "distributions": loaded.distributions,
                "distribution_files": loaded.distribution_files}

    def _parts(self, request: dict[str, Any], arrays: Arrays) -> Reply:
        parts = _call(self.plugin.parts)
        if not isinstance(parts, dict) or not all(isinstance(name, str) for name in parts):
            raise SystemRaised(f"parts() must return a dict of names to paths, not {parts!r}")
        return {"parts": {name: str(Path(path)) for name, path in parts.items()}}

    def _attested(self, request: dict[str, Any], arrays: Arrays) -> Reply:
        attested = getattr(self.plugin, "attested", None)
        return {"attested": _json("attested()", dict(_call(attested))) if callable(attested) else {}}

    def _search(self, request: dict[str, Any], arrays: Arrays) -> Reply:
        mode, text, top_k = str(request["mode"]), str(request["text"]), int(request["top_k"])
        started = time.perf_counter_ns()
        try:
            results = self.plugin.search(mode, text, arrays.get("vector"), top_k)
        except Exception as exc:
            raise SystemRaised(f"search({mode!r}) raised {type(exc).__name__}: {exc}",
                               elapsed_ns=time.perf_counter_ns() - started) from exc
        elapsed = time.perf_counter_ns() - started
        try:
            return {"results": _answer(results, mode), "statistics": _statistics(results, mode), "elapsed_ns": elapsed}
        except SystemRaised as exc:
            exc.extra["elapsed_ns"] = elapsed
            raise

    def _close(self, request: dict[str, Any], arrays: Arrays) -> Reply:
        close = getattr(self._plugin, "close", None)
        self.holding = False
        if callable(close):
            _call(close)
        return {}

    def _exit(self, request: dict[str, Any], arrays: Arrays) -> Reply:
        return {}  # the worker ends after answering; shutdown() lets the system go

    def shutdown(self) -> None:
        """At the end of the worker: the system lets go of what it holds (best effort; the process ends anyway)."""
        if not self.holding:
            return
        try:
            self._close({}, {})
        except Exception as exc:
            print(f"the system's close() failed at exit: {exc}", file=sys.stderr)
