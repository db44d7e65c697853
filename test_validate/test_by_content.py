"""Facts kept under the digest of the bytes they were computed from: recomputed for other bytes, never kept for
bytes of unknown digest; and a forged fixture validated after the genuine one in the same process is judged on its
own bytes."""

import json
from pathlib import Path

from harness.validator.core.by_content import of_content
from harness.validator.pipeline import validate

from .support import RunCopy, failed_names, sha256_file


def test_a_fact_is_made_once_per_digest_and_always_without_one() -> None:
    calls: list[str] = []

    def made(tag: str) -> str:
        calls.append(tag)
        return tag
    assert of_content("sha256:one", "test fact", lambda: made("a")) == "a"
    assert of_content("sha256:one", "test fact", lambda: made("b")) == "a"
    assert of_content("sha256:two", "test fact", lambda: made("c")) == "c"
    assert of_content(None, "test fact", lambda: made("d")) == "d"
    assert of_content(None, "test fact", lambda: made("e")) == "e"
    assert calls == ["a", "c", "d", "e"]


def test_a_doctored_fixture_after_the_genuine_one_is_judged_on_its_own_bytes(run_copy: RunCopy) -> None:
    clean = validate(run_copy.clean.aggregate_path("fts_only", "calibration"), embeddings=False)
    assert "corpus.pinned" not in failed_names(clean)
    fixture_path, _ = run_copy.copy_fixture()
    fixture = json.loads(fixture_path.read_text(encoding="utf-8"))
    fixture["queries"][0]["qrels"] = {fixture["documents"][0]["doc_id"]: 1}  # a forged judgement
    fixture_path.write_bytes(json.dumps(fixture, ensure_ascii=False, indent=1).encode("utf-8") + b"\n")
    aggregate = run_copy.edit_receipt("fts_only", "calibration", lambda r: r["corpus"].update(
        fixture_sha256=sha256_file(Path(fixture_path))))
    forged = validate(aggregate, embeddings=False)
    assert "corpus.pinned" in failed_names(forged)


def test_a_store_mapping_changed_after_a_validation_in_the_same_process_is_checked_again(run_copy: RunCopy) -> None:
    """The mapping's schema check is kept under the digest of the bytes read, so another validation of the same
    store in the process skips it; bytes changed since are checked afresh."""
    store = run_copy.copy_store()
    aggregate = run_copy.aggregate_path("fts_only", "calibration")
    assert "store.mapping" not in failed_names(validate(aggregate, embeddings=False))
    mapping = json.loads((store / "mapping.json").read_text(encoding="utf-8"))
    mapping["documents"] = "ten"  # not the count the schema asks for
    (store / "mapping.json").write_text(json.dumps(mapping), encoding="utf-8")
    assert "store.mapping" in failed_names(validate(aggregate, embeddings=False))
