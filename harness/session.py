"""Build-or-reuse of the corpus fixture for test sessions, safe across pytest-xdist workers.

Without an archive, a fixture already in the work dir is reused when it verifies (its schema and vector
digest) and was built under this contract, text profile and model identity: held-out, final, benchmark
and parity runs then need neither the archive nor the network. With an archive, the build runs (a
cache hit when nothing changed).
"""

import time
from pathlib import Path

from .build import BUILD_LOCK, BuildReport, build_fixture
from .contract import Contract
from .embedders.base import Embedder
from .errors import DownloadError, FixtureError
from .fixture import load_fixture
from .hashing import sha256_canonical
from .locks import file_lock
from .profiles import TextProfile, text_profile

FIXTURE_NAME = "scifact-corpus.json"


def reusable_fixture(contract: Contract, out: Path, embedder: Embedder, profile: TextProfile) -> BuildReport | None:
    """The fixture at `out` when it verifies and matches; None when there is none; an error when it differs."""
    if not out.is_file():
        return None
    started = time.perf_counter()
    fixture = load_fixture(out)
    data = fixture.data
    differing = [what for what, found, wanted in (
        ("contract", data["contract"], contract.summary()),
        ("text profile", data["profile"], profile.record()),
        ("model identity", data["embedding"]["identity_sha256"], sha256_canonical(embedder.identity())),
    ) if found != wanted]
    if differing:
        raise FixtureError(f"{out} was built for another {' and '.join(differing)} than this run asks for; pass "
                           "--archive=PATH (or set SCIFACT_ARCHIVE) to build the fixture again")
    return BuildReport(fixture=out, archive=None, documents=len(
        data["documents"]), queries=len(data["queries"]), qrel_pairs=sum(len(q["qrels"]) for q in data["queries"]),
        dimensions=int(data["vectors"]["dimensions"]), embedded=0, from_cache=0, changed=False,
        seconds=time.perf_counter() - started)


def locked_build(contract: Contract, *, work_dir: Path, embedder: Embedder, archive: Path | None,
                 out: Path | None = None, progress: bool = False, profile: TextProfile | None = None,
                 url: str | None = None) -> BuildReport:
    """Every worker calls this; the build's work-directory lock makes one build at a time, and the build is
    idempotent, so the first worker embeds and the others find every vector in the cache. The reuse check
    reads under the same lock, so it never sees a fixture another build is writing."""
    out = out or work_dir / FIXTURE_NAME
    profile = profile or text_profile("scifact-contract", contract)
    if archive is None:
        with file_lock(work_dir / BUILD_LOCK, f"another build in the work directory {work_dir}"):
            reused = reusable_fixture(contract, out, embedder, profile)
        if reused is not None:
            return reused
    try:
        return build_fixture(contract, out=out, work_dir=work_dir, embedder=embedder, archive=archive,
                             progress=progress, profile=profile, url=url)
    except DownloadError as exc:
        raise DownloadError(f"no SciFact corpus to evaluate: no archive given (--archive=PATH or SCIFACT_ARCHIVE), "
                           f"no built fixture at {out}, and the download failed: {exc}") from None
