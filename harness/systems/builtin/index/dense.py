"""The dense lane: exact inner product over every stored unit vector (cosine), no approximation.

BLAS kernels sum a row's products in an order that can depend on the row's position, so two
identical vectors stored in different places can score a few ulp apart, and storage order would
decide their tie. Every row therefore takes the score of the first row with the same bytes: equal
vectors always score equally, and the doc_id tie rule decides.
"""

import numpy as np
from numpy.typing import NDArray

BACKEND = "numpy-exact-inner-product"


def _representatives(matrix: NDArray[np.float32]) -> NDArray[np.intp] | None:
    """For each row, the first row with identical bytes; None when all rows are distinct."""
    rows = np.ascontiguousarray(matrix).view(np.dtype((np.void, matrix.dtype.itemsize * matrix.shape[1]))).ravel()
    _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    representative = first[inverse.ravel()]
    return None if np.array_equal(representative, np.arange(matrix.shape[0])) else representative


class DenseIndex:
    def __init__(self, matrix: NDArray[np.float32]) -> None:
        if matrix.ndim != 2 or matrix.dtype != np.float32:
            raise ValueError(f"dense matrix must be 2-D float32, got {matrix.dtype} {matrix.shape}")
        self.matrix = np.ascontiguousarray(matrix)
        self._representative = _representatives(self.matrix)

    @property
    def document_count(self) -> int:
        return int(self.matrix.shape[0])

    @property
    def dimensions(self) -> int:
        return int(self.matrix.shape[1])

    @property
    def duplicate_rows(self) -> int:
        if self._representative is None:
            return 0
        return int(np.count_nonzero(self._representative != np.arange(self.document_count)))

    def score(self, query_vector: NDArray[np.float32]) -> NDArray[np.float32]:
        if query_vector.shape != (self.dimensions,):
            raise ValueError(
                f"query vector has shape {query_vector.shape}, the store holds {self.dimensions}-d vectors"
            )
        scores: NDArray[np.float32] = self.matrix @ query_vector
        return scores if self._representative is None else scores[self._representative]

    def evidence(self) -> dict[str, object]:
        return {"backend": BACKEND, "exact": True, "candidates_scored": self.document_count,
                "dtype": str(self.matrix.dtype), "dimensions": self.dimensions, "metric": "cosine on unit vectors",
                "identical_vectors_share_a_score": True, "duplicate_vectors": self.duplicate_rows}
