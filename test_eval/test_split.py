"""The deterministic split: order by (sha256(id), id), first N calibration, the rest held-out."""

import hashlib
import random

import pytest

from harness.corpus.split import select, selected_ids_sha256, split_order

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


def test_selection_digest_is_the_sha256_of_the_compact_json_list() -> None:
    assert selected_ids_sha256(["q2", "q10", "\u00e9"]) == (
        "sha256:e94f5c52a0bd16154fde58925144791af6187bbcc318fabeb6aaba86fcafe8a2")  # of b'["q2","q10","\xc3\xa9"]'
    calibration = select(IDS, "calibration", 100)
    assert calibration[:5] == ["286", "245", "178", "55", "51"]
    by_hand = ("[" + ",".join(f'"{qid}"' for qid in calibration) + "]").encode("ascii")
    # The literal: the first 100 of `seq 1 300` ordered by (sha256sum of the id, id), as a compact JSON list.
    assert selected_ids_sha256(calibration) == "sha256:" + hashlib.sha256(by_hand).hexdigest() == (
        "sha256:a8b9762341542f26d08431074cd6b4ceec0452849ac1e7c019fbdc1ccbf025e3")


def test_selection_digest_changes_with_membership_and_order() -> None:
    calibration = select(IDS, "calibration", 100)
    swapped = [*calibration[:-1], select(IDS, "heldout", 100)[0]]
    reordered = [calibration[1], calibration[0], *calibration[2:]]
    digests = {selected_ids_sha256(ids) for ids in (calibration, swapped, reordered)}
    assert len(digests) == 3


def test_bad_inputs() -> None:
    with pytest.raises(ValueError, match="repeat"):
        split_order(["a", "a"])
    with pytest.raises(ValueError, match="unknown split"):
        select(IDS, "test", 100)
    with pytest.raises(ValueError, match="calibration count"):
        select(IDS, "calibration", 300)
