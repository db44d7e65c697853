"""Vector checks: rejects what cannot be a usable embedding, naming the text; normalizes the rest."""

import math

import numpy as np
import pytest

from harness.embedding.vectors import check_and_normalize
from harness.errors import InvalidVectorError


def test_normalizes_to_unit_length_float32() -> None:
    vector = check_and_normalize("document:a", [3.0, 4.0], 2)
    assert vector.dtype == np.dtype("<f4")
    assert vector.tolist() == pytest.approx([0.6, 0.8])
    assert math.isclose(float(np.linalg.norm(vector.astype(np.float64))), 1.0, rel_tol=1e-6)


@pytest.mark.parametrize(
    ("raw", "dims", "problem"),
    [
        ([], None, "is empty"),
        ([0.0, 0.0, 0.0], 3, "zero norm"),
        ([1.0, float("nan"), 0.0], 3, "NaN or infinite"),
        ([1.0, float("inf"), 0.0], 3, "NaN or infinite"),
        ([1.0, 2.0], 3, "has 2 dimensions, expected 3 (dimension drift)"),
        ([[1.0, 2.0]], None, "one flat vector"),
        (["a", "b"], None, "not a list of numbers"),
    ],
)
def test_rejects_with_the_text_id(raw: list[object], dims: int | None, problem: str) -> None:
    with pytest.raises(InvalidVectorError) as caught:
        check_and_normalize("query:q42", raw, dims)  # type: ignore[arg-type]
    assert caught.value.text_id == "query:q42"
    assert problem in str(caught.value)
    assert "query:q42" in str(caught.value)
