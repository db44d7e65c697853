"""An environment variable that names a per-user file (the held-out record, the validator's key), pointed for a test
session at a file in a temporary directory of its own: shared by the session's xdist workers, removed at its end, and
pointed back at the user's own file for the tests that work on the user's real data."""

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest


@dataclass(frozen=True)
class SessionVariable:
    variable: str
    file_name: str
    worker_key: str  # how the controller hands the user's own value to its xdist workers
    users: pytest.StashKey[str | None] = field(default_factory=pytest.StashKey[str | None])
    directory: pytest.StashKey[Path] = field(default_factory=pytest.StashKey[Path])

    def configure(self, config: pytest.Config) -> None:
        workerinput: dict[str, Any] | None = getattr(config, "workerinput", None)
        if workerinput is not None:  # an xdist worker: the controller's temporary file is already in the environment
            config.stash[self.users] = workerinput.get(self.worker_key)
            return
        config.stash[self.users] = os.environ.get(self.variable)
        directory = Path(tempfile.mkdtemp(prefix=f"{self.variable.lower()}-"))
        config.stash[self.directory] = directory
        os.environ[self.variable] = str(directory / self.file_name)

    def unconfigure(self, config: pytest.Config) -> None:
        directory = config.stash.get(self.directory, None)
        if directory is None:
            return
        shutil.rmtree(directory, ignore_errors=True)
        users = config.stash[self.users]
        if users is None:
            os.environ.pop(self.variable, None)
        else:
            os.environ[self.variable] = users

    def configure_node(self, node: Any) -> None:
        node.workerinput[self.worker_key] = node.config.stash[self.users]

    def use_the_users(self, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
        """For a test on the user's real data: the user's own file (none set: the variable unset)."""
        users = request.config.stash[self.users]
        if users is None:
            monkeypatch.delenv(self.variable, raising=False)
        else:
            monkeypatch.setenv(self.variable, users)
