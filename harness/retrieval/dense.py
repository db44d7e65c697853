"""The dense lane: exact inner product over every stored unit vector (cosine), no approximation."""

import numpy as np
from numpy.typing import NDArray

BACKEND = "numpy-exact-inner-product"


class DenseIndex:
    def __init__(self, matrix: NDArray[np.float32]) -> None:
        if matrix.ndim != 2 or matrix.dtype != np.float32:
            raise ValueError(f"dense matrix must be 2-D float32, got {matrix.dtype} {matrix.shape}")
        self.matrix = np.ascontiguousarray(matrix)

    @property
    def document_count(self) -> int:
        return int(self.matrix.shape[0])

    @property
    def dimensions(self) -> int:
        return int(self.matrix.shape[1])

    def score(self, query_vector: NDArray[np.float32]) -> NDArray[np.float32]:
        if query_vector.shape != (self.dimensions,):
            raise ValueError(
                f"query vector has shape {query_vector.shape}, the store holds {self.dimensions}-d vectors"
            )
        return self.matrix @ query_vector

    def evidence(self) -> dict[str, object]:
        return {"backend": BACKEND, "exact": True, "candidates_scored": self.document_count,
                "dtype": str(self.matrix.dtype), "dimensions": self.dimensions, "metric": "cosine on unit vectors"}
