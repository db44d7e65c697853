"""Each query's vector, from the corpus fixture only: the evaluation hands it to the system, which never embeds."""

import numpy as np
from numpy.typing import NDArray

from harness.errors import HarnessError
from harness.fixture.corpus_fixture import CorpusFixture


class UnknownQueryError(HarnessError):
    """The query text has no vector in the corpus fixture."""


class QueryVectors:
    def __init__(self, fixture: CorpusFixture) -> None:
        self._vectors: dict[str, NDArray[np.float32]] = {}
        for query, vector in zip(fixture.data["queries"], fixture.query_vectors, strict=True):
            self._vectors.setdefault(query["text"], vector)

    def __call__(self, text: str) -> NDArray[np.float32]:
        try:
            return self._vectors[text]
        except KeyError:
            raise UnknownQueryError(
                f"query text {text[:80]!r} has no vector in the corpus fixture; the runner never embeds "
                "query text itself, so add the query to the fixture and rebuild it"
            ) from None
