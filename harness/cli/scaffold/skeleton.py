"""What `new-system NAME` writes: a working system of the user's own (NAME.py) and tests of their own on the suite's
fixtures (test_NAME.py), each ruff-clean and mypy --strict clean as written (test_eval/test_new_system.py)."""

from dataclasses import dataclass
from string import Template

TAKEN = {"Any", "ClassVar", "Corpus", "DENSE_EXACT", "MANIFEST", "NDArray", "Path", "Result", "SYSTEM", "VECTORS"}
# A calibration query of SciFact whose one relevant document the skeleton's exact dense search ranks first.
KNOWN_QUERY = "130"

SYSTEM = Template('''\
"""$module: a retrieval system of your own for the SciFact harness, written by `scifact-harness new-system`.

It ranks every document by the exact inner product of the fixture's unit vectors: a working baseline, to replace with
your own engine. What the harness asks of it: the plugin interface (harness/systems/plugin/api.py) and the rules of
`search` (the harness's docs/systems.md). The calibration, from this directory:

    pytest -p scifact_harness -m calibration --scifact-system=$module:SYSTEM
"""

import json
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from harness.systems.plugin import DENSE_EXACT, Corpus, Result
from numpy.typing import NDArray

VECTORS = "vectors.npy"  # the index: one float32 row per document, in corpus order
MANIFEST = "built.json"  # what the index was built from, so a directory built from other inputs is refused


class $cls:
    # `name` and `version` identify the system in every receipt; a held-out run refuses a system whose name, version,
    # configuration or source differ from the frozen one. Bump the version when you change what it ranks.
    name = "$name"
    version = "0.1.0"
    # The modes it offers, of fts_only, vector_only and hybrid. fts_only is handed no query vector; hybrid returns
    # per-lane evidence and declares its fusion (the harness's examples/tfidf_hybrid.py offers all three).
    modes = ("vector_only",)
    # What the validator may replay on its own: the dense lane scores every document by the float32 inner product of
    # the fixture's vectors, so each ranking is recomputed independently. Remove it for an approximate index.
    declarations: ClassVar[dict[str, Any]] = {"dense": DENSE_EXACT}

    def __init__(self) -> None:
        self.directory: Path | None = None
        self.matrix: NDArray[np.float32] = np.zeros((0, 0), dtype=np.float32)
        self.doc_ids: NDArray[np.str_] = np.array([], dtype=np.str_)

    def configuration(self) -> dict[str, Any]:
        # Every setting that can change a ranking, as JSON values, and no secret: the receipts bind it by digest.
        return {"metric": "inner product", "dtype": "float32", "ties": "doc_id ascending"}

    def build(self, corpus: Corpus, directory: Path) -> bool:
        # Build the index in `directory` from the corpus (doc ids, titles, texts, the fixture's unit vectors); never
        # embed text. Idempotent: on its own directory nothing changes (False); one built from another corpus or
        # configuration is refused, naming which.
        wanted = {"fixture_sha256": corpus.fixture_sha256, "configuration": self.configuration()}
        manifest = directory / MANIFEST
        if manifest.exists():
            found = json.loads(manifest.read_text(encoding="utf-8"))
            for key, what in (("fixture_sha256", "corpus fixture"), ("configuration", "configuration")):
                if found.get(key) != wanted[key]:
                    raise ValueError(f"{directory} was built from another {what}: build in a new directory")
            self.open(corpus, directory)
            return False
        np.save(directory / VECTORS, np.ascontiguousarray(corpus.vectors, dtype=np.float32))
        manifest.write_text(json.dumps(wanted, sort_keys=True), encoding="utf-8")
        self.open(corpus, directory)
        return True

    def open(self, corpus: Corpus, directory: Path) -> None:
        # Open what build made, never build; load here everything search needs (a module first imported while
        # searching is refused at the end of a run).
        matrix = np.load(directory / VECTORS)
        if matrix.shape != corpus.vectors.shape:
            raise ValueError(f"{directory / VECTORS} holds {matrix.shape} vectors, the corpus {corpus.vectors.shape}: "
                             "build in a new directory")
        self.directory, self.matrix, self.doc_ids = directory, matrix, np.array(corpus.doc_ids)

    def parts(self) -> dict[str, Path]:
        # Every file or directory the system persisted: the receipts bind their sha256 and the validator re-hashes them.
        if self.directory is None:
            raise RuntimeError("build or open the system first")
        return {"vectors": self.directory / VECTORS, "manifest": self.directory / MANIFEST}

    def search(self, mode: str, text: str, vector: NDArray[np.float32] | None, top_k: int) -> list[Result]:
        # The timed call; replace with your engine's search. The rules: at most top_k results, each a document of the
        # corpus, once, best first (scores descending and finite, equal scores by doc id ascending).
        if vector is None:
            raise ValueError(f"{mode} hands no query vector; this system offers {', '.join(self.modes)}")
        scores = self.matrix @ vector
        k = min(top_k, len(scores))
        if k <= 0:
            return []
        cut = np.partition(scores, len(scores) - k)[len(scores) - k]  # the k-th best score
        candidates = np.flatnonzero(scores >= cut)  # the k best, and every document tied with the last of them
        best = candidates[np.lexsort((self.doc_ids[candidates], -scores[candidates]))][:k]
        return [Result(str(self.doc_ids[i]), float(scores[i])) for i in best]


SYSTEM = $cls()
''')

TESTS = Template('''\
"""Tests of your own for $module.py, on the SciFact suite's fixtures (the scifact_harness pytest plugin). From this
directory:

    pytest -p scifact_harness --scifact-system=$module:SYSTEM test_$module.py

`scifact_system` is the system --scifact-system names, built once per session from the real fixture and answering in
a worker process of its own, as in the evaluation: these tests never import $module.py, so the process that holds the
judgements never runs your code. They read the calibration queries' judgements only: the held-out queries' are for
the one held-out run after the freeze.
"""

import numpy as np
import pytest
from harness.suite.types import CorpusFixture, Query, SystemUnderTest
from numpy.typing import NDArray

NAME = "$name"  # SYSTEM.name in $module.py
MODE = "vector_only"  # the mode these tests search in, one of SYSTEM.modes
KNOWN_QUERY = "$known_query"  # a calibration query the exact dense search answers with its relevant document first


@pytest.fixture
def system(scifact_system: SystemUnderTest) -> SystemUnderTest:
    """The session's system under test, when it is this one."""
    name = scifact_system.identity().name
    if name != NAME or MODE not in scifact_system.modes:
        pytest.fail(f"the session evaluates {name!r} (modes {scifact_system.modes}), not {NAME!r} in {MODE}: pass "
                    "--scifact-system=$module:SYSTEM", pytrace=False)
    return scifact_system


def top_10(system: SystemUnderTest, corpus: CorpusFixture, query: Query) -> list[str]:
    """The doc ids the system ranks first for `query`, handed the fixture's vector of it as the evaluation does."""
    vector: NDArray[np.float32] | None = None if MODE == "fts_only" else corpus.query_vector(query.query_id)
    return [hit.doc_id for hit in system.search(MODE, query.text, vector, 10).hits]


def test_it_answers_with_ten_documents_of_the_fixture(system: SystemUnderTest, scifact_corpus: CorpusFixture) -> None:
    documents = set(scifact_corpus.doc_ids)
    for query in scifact_corpus.split("calibration")[:20]:
        ranked = top_10(system, scifact_corpus, query)
        assert len(ranked) == 10 and len(set(ranked)) == 10 and set(ranked) <= documents, query.query_id


def test_a_known_query_finds_its_relevant_document(system: SystemUnderTest, scifact_corpus: CorpusFixture) -> None:
    query = scifact_corpus.query(KNOWN_QUERY)
    ranked = top_10(system, scifact_corpus, query)
    assert set(query.relevant) & set(ranked), f"query {query.query_id}: none of {sorted(query.relevant)} in {ranked}"


def test_most_calibration_queries_find_a_relevant_document(system: SystemUnderTest,
                                                           scifact_corpus: CorpusFixture) -> None:
    queries = scifact_corpus.split("calibration")
    found = sum(bool(set(query.relevant) & set(top_10(system, scifact_corpus, query))) for query in queries)
    assert found >= 0.6 * len(queries), f"{found} of {len(queries)} calibration queries found a relevant document"
''')


@dataclass(frozen=True)
class Skeleton:
    """A new system's files, by name: the module and its tests."""

    module: str

    @property
    def system_name(self) -> str:
        return self.module.strip("_").replace("_", "-") or "system"

    @property
    def class_name(self) -> str:
        """NAME in CamelCase, unless that is no identifier or a name the module already uses."""
        name = "".join(part[:1].upper() + part[1:] for part in self.module.split("_"))
        if not name.isidentifier():  # "" from "_", "1" from "_1"
            return f"System{name}"
        return f"{name}System" if name in TAKEN else name

    def files(self) -> dict[str, str]:
        values = {"module": self.module, "name": self.system_name, "cls": self.class_name, "known_query": KNOWN_QUERY}
        return {f"{self.module}.py": SYSTEM.substitute(values), f"test_{self.module}.py": TESTS.substitute(values)}
