"""Building and opening a system from outside the harness, each in a fresh worker process.

The harness's process never imports the system. A first worker loads it to learn what it declares (name, version,
modes, the environment variables it reads); a system that declares variables is loaded again in a worker that
has them. `build` runs in a worker of its own, then the system is opened in a fresh one, so every run, freeze
and replay binds what a system opened from disk loads, whether or not it was built in the same command.
"""

import os
import sys
from pathlib import Path

from harness.errors import HarnessError
from harness.fixture.corpus_fixture import CorpusFixture
from harness.systems.plugin.adapter import Loaded, PluginSystem, corpus_of, corpus_request
from harness.systems.plugin.api import Corpus
from harness.systems.plugin.client import PluginError, Worker
from harness.systems.plugin.loading import OPTION
from harness.typed_commands import harness_command


def search_path(directory: Path | None = None) -> list[str]:
    """Where the harness's process finds modules, then the directory holding the system's module when that path does
    not (harness.systems.plugin.location): the worker imports `module:attribute` from these places."""
    entries = [os.path.abspath(entry) if entry else os.getcwd() for entry in sys.path]
    return list(dict.fromkeys([*entries, *([str(directory)] if directory is not None else [])]))


class PluginBuilder:
    def __init__(self, spec: str, namespace: str, options: dict[str, str] | None = None, *,
                 directory: Path | None = None, option: str = OPTION) -> None:
        self.spec, self.namespace, self.options = spec, namespace, dict(options or {})
        self.directory, self.option = directory, option
        self._workers: list[Worker] = []
        probe = self._start(())
        self.loaded = self._load(probe)
        self._spare: Worker | None = None if self.loaded.environment else probe
        if self._spare is None:
            probe.close()

    def _start(self, environment: tuple[str, ...]) -> Worker:
        worker = Worker(self.spec, environment)
        self._workers.append(worker)
        return worker

    def _load(self, worker: Worker) -> Loaded:
        try:
            reply = worker.ask("load", {"spec": self.spec, "options": self.options, "option": self.option,
                                        "sys_path": search_path(self.directory)})
            return Loaded(str(reply["name"]), str(reply["version"]), tuple(reply["modes"]),
                          tuple(reply["environment"]))
        except BaseException:
            worker.close()
            raise

    def _worker(self) -> Worker:
        if self._spare is not None:
            worker, self._spare = self._spare, None
            return worker
        worker = self._start(self.loaded.environment)
        again = self._load(worker)
        if again != self.loaded:
            worker.close()
            raise PluginError(f"system {self.spec!r} declares {again} when loaded with its declared environment, but "
                              f"{self.loaded} without it: what a system declares must not depend on the environment")
        return worker

    @property
    def modes(self) -> tuple[str, ...]:
        return self.loaded.modes

    def build(self, fixture: CorpusFixture, directory: Path) -> tuple[PluginSystem, bool]:
        corpus = corpus_of(fixture, self.namespace)
        directory.mkdir(parents=True, exist_ok=True)
        worker = self._worker()
        try:
            changed = bool(worker.ask("build", *corpus_request(corpus, directory))["changed"])
        finally:
            worker.close()
        return self._opened(corpus, directory), changed

    def open(self, fixture: CorpusFixture, directory: Path) -> PluginSystem:
        if not directory.is_dir():
            raise HarnessError(f"--store-dir {directory} holds no built system: run `{harness_command('run')}` "
                               "first")
        return self._opened(corpus_of(fixture, self.namespace), directory)

    def _opened(self, corpus: Corpus, directory: Path) -> PluginSystem:
        worker = self._worker()
        try:
            worker.ask("open", *corpus_request(corpus, directory))
            return PluginSystem(worker, self.loaded, self.spec, corpus, directory, self.options)
        except BaseException:
            worker.close()
            raise

    def close(self) -> None:
        """Stop every worker this builder started (the systems it opened answer no more)."""
        for worker in self._workers:
            worker.close()
