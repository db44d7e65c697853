"""Vector checks: every vector is finite, non-empty, of the expected dimension, then L2-normalized."""

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from harness.errors import InvalidVectorError

NORMALIZATION = "l2: computed in float64, stored as little-endian float32"
_MIN_NORM = 1e-12

Vector = NDArray[np.float32]


def check_and_normalize(text_id: str, raw: Sequence[float] | NDArray[np.floating], dimensions: int | None) -> Vector:
    try:
        values = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidVectorError(text_id, f"is not a list of numbers ({exc})") from exc
    if values.ndim != 1:
        raise InvalidVectorError(text_id, f"has shape {values.shape}, expected one flat vector")
    if values.size == 0:
        raise InvalidVectorError(text_id, "is empty")
    if dimensions is not None and values.size != dimensions:
        raise InvalidVectorError(text_id, f"has {values.size} dimensions, expected {dimensions} (dimension drift)")
    if not np.all(np.isfinite(values)):
        raise InvalidVectorError(text_id, "has NaN or infinite components")
    norm = float(np.linalg.norm(values))
    if norm < _MIN_NORM:
        raise InvalidVectorError(text_id, f"has zero norm ({norm:g})")
    return (values / norm).astype("<f4")
