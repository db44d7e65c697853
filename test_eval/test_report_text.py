"""How the report writes p-values: one format per range, so neighbouring values in a column read alike."""

import pytest

from harness.publish.text.report_text import p_value


@pytest.mark.parametrize(("value", "written"), [
    (0.61034, "0.6103"), (0.0014, "0.0014"),
    (0.000999900009999, "0.0010"),  # 3 x 1 / 10001, Holm's adjustment of the smallest randomization p-value
    (0.00015, "0.00015"), (4.8e-10, "4.8e\u221210"), (None, "undefined"),
])
def test_p_values_are_written_in_one_format_per_range(value: float | None, written: str) -> None:
    assert p_value(value) == written
