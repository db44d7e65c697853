"""The dense lane: exact inner product over every stored unit vector (cosine), no approximation.

BLAS kernels sum a row's products in an order that can depend on the row's position, so two
identical vectors stored in different places can score a few ulp apart, and storage order would
decide their tie. Every row therefore takes the score of the first row with the same bytes: equal
vectors always score equally, and the doc_id tie rule decides.
"""

import numpy as np
from numpy.typing import NDArray

BACKEND = "numpy-exact-inner-product"


_HASH_CHUNK = 8192


def _row_hashes(words: NDArray[np.uint32]) -> NDArray[np.uint64]:
    """A 64-bit hash of each row's bytes (a fixed random linear form, wrapping): equal rows hash equally."""
    weights = np.random.default_rng(384).integers(1, 2 ** 63, size=words.shape[1], dtype=np.uint64) | np.uint64(1)
    hashes = np.empty(words.shape[0], dtype=np.uint64)
    for start in range(0, words.shape[0], _HASH_CHUNK):
        hashes[start:start + _HASH_CHUNK] = words[start:start + _HASH_CHUNK].astype(np.uint64) @ weights
    return hashes


def _representatives(matrix: NDArray[np.float32]) -> NDArray[np.intp] | None:
    """For each row, the first row with identical bytes; None when all rows are distinct. Rows are grouped by a
    hash and every grouping is then confirmed byte for byte, so a hash collision is found and the rows are compared
    whole instead (the slow, memory-hungry way: a sorted copy of the matrix)."""
    words = np.ascontiguousarray(matrix).view(np.uint32)
    _, first, inverse = np.unique(_row_hashes(words), return_index=True, return_inverse=True)
    representative: NDArray[np.intp] = first[inverse.ravel()]
    moved = np.flatnonzero(representative != np.arange(matrix.shape[0]))
    if moved.size and not np.array_equal(words[moved], words[representative[moved]]):
        rows = words.view(np.dtype((np.void, words.dtype.itemsize * words.shape[1]))).ravel()
        _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
        representative = first[inverse.ravel()]
        moved = np.flatnonzero(representative != np.arange(matrix.shape[0]))
    return representative if moved.size else None


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
