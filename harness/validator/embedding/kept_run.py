"""A re-embedding (the full one, or the first sample drawn) kept across processes: its outcome recalled for the same
scope, fixture, vectors, verifier and embedding code (`verdicts.re_embedding`), else recorded after it is made. The
verifier is the model's own files (every file of the packaged model's directory, by digest; for a model of one's own,
the declared digest its every file was held to) and libraries, or the Ollama server and the model's digest."""

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.digests import directory_digest, sha256_file
from ..core.reading import note_tree
from ..core.settled import settled_digest
from ..verdicts.re_embedding import material, recall, remember
from .embedders import model_directory


@dataclass(frozen=True)
class Kept:
    material: dict[str, Any]
    outcome: dict[str, Any] | None  # the recalled outcome, None when there is none for this material

    def keep(self, outcome: dict[str, Any]) -> dict[str, Any]:
        """The outcome as reported: recalled (reused), or made now and recorded."""
        if self.outcome is not None:
            return {**self.outcome, "reused": True}
        stamped, problem = remember(self.material, outcome)
        return {**stamped, "reused": False, **({"not_kept": problem} if problem else {})}


def verifier_identity(verification: dict[str, Any]) -> dict[str, Any] | None:
    """The verifier by content; None when no verifier is named (an Ollama fixture without a server)."""
    if "server" in verification:
        return {"server": verification["server"], "model_digest": verification.get("model_digest")}
    if "libraries" not in verification:
        return None
    if "model_files_sha256" in verification:  # a model of one's own: every file it loads was held to this digest
        return {"model_files_sha256": verification["model_files_sha256"], "libraries": verification["libraries"]}
    directory = model_directory()
    note_tree(directory)
    files = directory_digest(directory, settled_digest)  # the model's 90 MB hashed once per process while it stands
    return {"model_files_sha256": files, "libraries": verification["libraries"]}


@dataclass(frozen=True)
class Keeping:
    """What a kept re-embedding of one check is keyed by, found once: the fixture and its vectors by digest, and the
    verifier by content."""
    fixture_sha256: str
    vectors_sha256: str
    verifier: dict[str, Any]

    def kept(self, scope: str) -> Kept:
        """The kept re-embedding of this scope ('full' or 'sample'), with its outcome when one was recorded."""
        key_material = material(scope, self.fixture_sha256, self.vectors_sha256, self.verifier)
        return Kept(key_material, recall(key_material))


_FRESH_ONLY: list[bool] = []  # set while a bundle is validated for its reader: nothing kept is recalled or kept


@contextlib.contextmanager
def fresh_only() -> Iterator[None]:
    """Within it, no kept re-embedding is recalled or recorded: every text is re-embedded in this process (a reader's
    validation of a bundle takes no record sealed by anyone, not even one this machine's key verifies)."""
    _FRESH_ONLY.append(True)
    try:
        yield
    finally:
        _FRESH_ONLY.pop()


def keeping(fixture_sha256: str, sidecar: Path, verification: dict[str, Any]) -> Keeping | None:
    """None when no verifier is named (nothing can be kept for it), or within `fresh_only`."""
    if _FRESH_ONLY:
        return None
    identity = verifier_identity(verification)
    if identity is None:
        return None
    return Keeping(fixture_sha256, sha256_file(sidecar), identity)
