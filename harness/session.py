"""Build-or-reuse of the corpus fixture for test sessions, safe across pytest-xdist workers."""

from pathlib import Path

from .build import BuildReport, build_fixture
from .contract import Contract
from .embedders.base import Embedder
from .profiles import TextProfile

FIXTURE_NAME = "scifact-corpus.json"


def locked_build(contract: Contract, *, work_dir: Path, embedder: Embedder, archive: Path | None,
                 out: Path | None = None, progress: bool = False, profile: TextProfile | None = None) -> BuildReport:
    """Every worker calls this; the build's work-directory lock makes one build at a time, and the build is
    idempotent, so the first worker embeds and the others find every vector in the cache."""
    return build_fixture(contract, out=out or work_dir / FIXTURE_NAME, work_dir=work_dir,
                         embedder=embedder, archive=archive, progress=progress, profile=profile)
