"""A dense retrieval system of its own, in plain numpy: exact inner product over the fixture's vectors."""

from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from harness.systems.plugin import DENSE_EXACT, Corpus, Result


class NumpyDense:
    name = "numpy-dense"
    version = "1.0.0"
    modes = ("vector_only",)
    declarations: ClassVar = {"dense": DENSE_EXACT}  # so the validator replays every ranking from the fixture

    def configuration(self) -> dict[str, Any]:
        return {"metric": "inner product", "dtype": "float32", "ties": "doc_id ascending"}

    def build(self, corpus: Corpus, directory: Path) -> bool:
        path = directory / "vectors.npy"
        if path.exists() and not np.array_equal(np.load(path), corpus.vectors):
            raise ValueError(f"{path} was built from another corpus: use a new directory")
        changed = not path.exists()
        if changed:
            np.save(path, corpus.vectors)
        self.open(corpus, directory)
        return changed

    def open(self, corpus: Corpus, directory: Path) -> None:
        self.path = directory / "vectors.npy"
        self.matrix, self.doc_ids = np.load(self.path), corpus.doc_ids

    def parts(self) -> dict[str, Path]:
        return {"vectors": self.path}

    def search(self, mode: str, text: str, vector: NDArray[np.float32] | None, top_k: int) -> list[Result]:
        assert vector is not None  # vector_only always gets the fixture's query vector
        scores = self.matrix @ vector
        best = sorted(range(len(scores)), key=lambda i: (-scores[i], self.doc_ids[i]))[:top_k]
        return [Result(self.doc_ids[i], float(scores[i])) for i in best]


SYSTEM = NumpyDense()
