"""What a retrieval system from outside the harness implements, and what it is given.

A plugin is an object (or a class, or a zero-argument callable returning one) with:

- `name` (str), `version` (str), `modes` (a tuple of the harness's modes it offers);
- `configuration() -> dict`: its complete configuration, JSON values only; every setting that changes a ranking;
- `build(corpus, directory) -> bool`: build or resume the system in `directory` from `corpus`, idempotently; True
  when anything changed on disk; a directory built from another corpus or configuration is refused (raise);
- `open(corpus, directory) -> None`: open what `build` made, never build;
- `parts() -> dict[str, Path]`: its persisted local files or directories, hashed into the receipts;
- `search(mode, text, vector, top_k) -> list[Result]`: the timed call; `vector` is the fixture's vector of the
  query (None for fts_only); the system never embeds text. Its rules (harness/systems/plugin/rules.py): at most
  top_k results of the corpus's documents, each once, best first (scores descending and finite, equal scores by
  doc id ascending); `lanes` empty in fts_only and vector_only; in hybrid, `score` is the fused score of the fusion
  the system declares (below) and `lanes` is {"lexical": (rank, score), "dense": (rank, score)}, ranks from 1 in
  that lane's own top `candidate_depth`, (None, None) where the lane did not retrieve the document. A hybrid that
  declares a convex fusion returns a `Ranking`: its results with each lane's `LaneStatistics` (what the
  normalisation used), which `fuse` returns. A broken rule fails the query, or stops the run when every answer of
  the code breaks it alike (a lane key, lanes in a one-lane mode, an undeclared fusion, a convex hybrid without
  its lanes' statistics);

and optionally:

- `declarations` (dict): what the validator may replay on its own. `{"dense": "exact_inner_product"}` states that
  the dense lane scores every document by the float32 inner product of the fixture's vectors; `{"fusion": ...}`
  states the hybrid's fusion (required to run hybrid), one of: `{"method": "rrf", "k": K, "candidate_depth": D}`,
  reciprocal rank fusion, a document's score the sum of 1 / (K + rank) over the lanes whose top D ranked it; or
  `{"method": "convex", "weight": W, "normalisation": "min-max" | "z-score", "candidate_depth": D}`, the convex
  combination (1 - W) * lexical + W * dense of each lane's score normalised over that lane's top D, a document a
  lane did not return getting that lane's lowest normalised value (harness/systems/fusion.py states each exactly;
  `fuse` computes either). Both rank by fused score descending, then doc id ascending, in float64. After the timed calls
  of a run the harness asks every answered query once more with top_k 100, untimed, for the depth-100 ranking that
  Recall@100 and nDCG@100 are computed from (the same rules of search hold; a broken one is named in the row and
  scores zero, the top-10 claim unchanged); `{"depth_ranking": False}` states that the system answers no top_k
  beyond the contract's, so none is asked and those metrics are absent;
- `engine() -> dict[str, str]`: the engine's own name and version (default: the plugin's);
- `attested() -> dict`: what cannot be hashed (a remote server's storage): what was asked of it, recorded as
  attested, not proven;
- `close() -> None`: let go of connections and locks after a run (the next `search` reopens what it needs), so
  the validator can ask the live system again from another process;
- `environment` (a tuple of names): the environment variables the system reads (a server's token, a knob). The
  system runs in a process of its own that starts with only what Python needs to run (PATH, HOME, the locale,
  TMPDIR, PYTHONPATH, VIRTUAL_ENV, thread caps: harness/systems/plugin/environment.py) and these names; any other
  variable never reaches it. The receipts bind each declared variable by the sha256 of its value (never the value),
  so a held-out run under another value is refused.

The system is imported and run in that worker process, never in the harness's own, which holds the relevance
judgements: the worker is handed the corpus and the queries, never the judgements, the fixture's path or an
artifact's. Everything the worker loads from outside the standard library, the installed distributions and the
harness is bound by path and sha256 (installed distributions by name and version): import what the system needs
when its module is imported or when it is opened, never first while searching (a run that does is refused).
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from harness.fixture.records import Corpus
from harness.systems.declarations import DENSE_EXACT
from harness.systems.fusion import LaneStatistics

__all__ = ["DENSE_EXACT", "REQUIRED_METHODS", "Corpus", "LaneStatistics", "Ranking", "Result", "RetrievalSystem"]
REQUIRED_METHODS = ("configuration", "build", "open", "parts", "search")


@dataclass(frozen=True)
class Result:
    """One ranked document. `lanes` (hybrid only): {"lexical": (rank, score), "dense": (rank, score)}, rank from 1,
    (None, None) where that lane did not return the document."""

    doc_id: str
    score: float
    lanes: Mapping[str, tuple[int | None, float | None]] = field(default_factory=dict)


class Ranking(list[Result]):
    """A hybrid's answer with each lane's statistics over its candidates (`{"lexical": ..., "dense": ...}`), which a
    convex fusion normalises by and the rows record, so the validator recomputes every fused score; `fuse` returns
    one."""

    def __init__(self, results: Iterable[Result] = (), statistics: Mapping[str, LaneStatistics] | None = None) -> None:
        super().__init__(results)
        self.statistics: dict[str, LaneStatistics] = dict(statistics or {})


class RetrievalSystem(Protocol):
    name: str
    version: str
    modes: tuple[str, ...]

    def configuration(self) -> dict[str, Any]: ...

    def build(self, corpus: Corpus, directory: Path) -> bool: ...

    def open(self, corpus: Corpus, directory: Path) -> None: ...

    def parts(self) -> dict[str, Path]: ...

    def search(self, mode: str, text: str, vector: NDArray[np.float32] | None, top_k: int) -> list[Result]: ...
