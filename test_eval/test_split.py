"""The deterministic split: order by (sha256(id), id), first N calibration, the rest held-out."""

import hashlib
import random

import pytest

from harness.split import select, selected_ids_sha256, split_order

IDS = [str(i) for i in range(1, 301)]


def test_order_is_by_digest_then_id() -> None:
    ordered = split_order(IDS)
    keys = [(hashlib.sha256(i.encode()).hexdigest(), i) for i in ordered]
    assert keys == sorted(keys)


def test_order_does_not_depend_on_input_order() -> None:
    shuffled = IDS[:]
    random.Random(7).shuffle(shuffled)
    assert split_order(shuffled) == split_order(IDS)


def test_calibration_and_heldout_are_disjoint_and_cover_all() -> None:
    calibration = select(IDS, "calibration", 100)
    heldout = select(IDS, "heldout", 100)
    assert len(calibration) == 100 and len(heldout) == 200
    assert not set(calibration) & set(heldout)
    assert set(calibration) | set(heldout) == set(IDS)
    assert select(IDS, "all", 100) == calibration + heldout


def test_selection_digest_changes_with_membership() -> None:
    calibration = select(IDS, "calibration", 100)
    assert selected_ids_sha256(calibration) == selected_ids_sha256(list(calibration))
    assert selected_ids_sha256(calibration) != selected_ids_sha256([*calibration[:-1], select(IDS, "heldout", 100)[0]])


def test_bad_inputs() -> None:
    with pytest.raises(ValueError, match="repeat"):
        split_order(["a", "a"])
    with pytest.raises(ValueError, match="unknown split"):
        select(IDS, "test", 100)
    with pytest.raises(ValueError, match="calibration count"):
        select(IDS, "calibration", 300)
