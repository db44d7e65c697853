"""Which stored vectors are byte-for-byte identical: for each row, the first row with the same bytes.

Rows are grouped by a 64-bit hash (a fixed random linear form of their 32-bit words, wrapping), and every grouping
is then confirmed by comparing the rows' bytes; should a hash ever join two different rows, the rows are compared
whole instead (a sorted copy of the matrix: slow and memory-hungry, but exact).
"""

import numpy as np
from numpy.typing import NDArray

CHUNK = 8192


def _hashes(words: NDArray[np.uint32]) -> NDArray[np.uint64]:
    weights = np.random.default_rng(2024).integers(1, 2 ** 63, size=words.shape[1], dtype=np.uint64) | np.uint64(1)
    hashes = np.empty(words.shape[0], dtype=np.uint64)
    for start in range(0, words.shape[0], CHUNK):
        hashes[start:start + CHUNK] = words[start:start + CHUNK].astype(np.uint64) @ weights
    return hashes


def first_identical(matrix: NDArray[np.float32]) -> NDArray[np.int64]:
    """For each row, the index of the first row with identical bytes (itself when none comes before it)."""
    words = np.ascontiguousarray(matrix, dtype=np.float32).view(np.uint32)
    _, first, inverse = np.unique(_hashes(words), return_index=True, return_inverse=True)
    representative = first[inverse.ravel()].astype(np.int64)
    moved = np.flatnonzero(representative != np.arange(words.shape[0]))
    if moved.size and not np.array_equal(words[moved], words[representative[moved]]):
        rows = words.view(np.dtype((np.void, words.dtype.itemsize * words.shape[1]))).ravel()
        _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
        representative = first[inverse.ravel()].astype(np.int64)
    return representative
