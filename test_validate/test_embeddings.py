"""The embedding check: it re-embeds a seeded sample with the packaged model and compares with the fixture."""

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from harness.validator.check_embeddings import MIN_COSINE, SAMPLE_DOCUMENTS
from harness.validator.cli import validate
from harness.validator.report import NOT_VERIFIED

from .support import GIT_CHECKS, RunCopy, assert_fails, check_named, describe, sha256_bytes, sha256_file

ROOT = Path(__file__).resolve().parent.parent


def sampled_documents(vectors_sha256: str, documents: int) -> list[int]:
    """The validator's stated sampling rule: seeded by the sidecar digest, SAMPLE_DOCUMENTS documents."""
    rng = random.Random(int(vectors_sha256[7:23], 16))
    return sorted(rng.sample(range(documents), min(SAMPLE_DOCUMENTS, documents)))


def swap_a_sampled_vector(copy: RunCopy) -> tuple[Path, int, int]:
    """Overwrite one document's vector (one the validator will sample) with another document's.

    The sidecar digest in the fixture and the fixture digest in the receipt are recomputed, so that no
    digest check can notice. The store, built from the original fixture, still holds the true vector, so
    store.vectors and the brute-force sample notice the disagreement; only re-embedding ties it to the model."""
    fixture_path, sidecar = copy.copy_fixture()
    fixture = json.loads(fixture_path.read_text(encoding="utf-8"))
    width = 4 * fixture["vectors"]["dimensions"]
    original = sidecar.read_bytes()
    documents = len(fixture["documents"])
    for target in range(documents):
        source = (target + 1) % documents
        data = bytearray(original)
        data[target * width:(target + 1) * width] = original[source * width:(source + 1) * width]
        digest = sha256_bytes(bytes(data))
        if target in sampled_documents(digest, documents):
            break
    else:
        raise AssertionError("no document of the tiny corpus would be sampled")
    sidecar.write_bytes(bytes(data))
    fixture["vectors"]["sha256"] = digest
    fixture_path.write_bytes(json.dumps(fixture, ensure_ascii=False, indent=1).encode("utf-8") + b"\n")
    path = copy.edit_receipt("vector_only", "calibration", lambda r: r["corpus"].update(
        fixture_sha256=sha256_file(fixture_path), vectors_sha256=digest))
    return path, target, source


@pytest.mark.real_model
def test_a_replaced_sampled_vector_fails_the_embedding_check(run_copy: RunCopy) -> None:
    aggregate, target, source = swap_a_sampled_vector(run_copy)
    store_side = frozenset({"store.vectors", "dense.exact_sample"})
    without = validate(aggregate, embeddings=False)
    assert not (set(c.name for c in without.failed) - GIT_CHECKS - store_side), (
        f"no digest check may notice:\n{describe(without)}")
    assert "store.vectors" in {c.name for c in without.failed}, describe(without)
    report = validate(aggregate)
    assert_fails(report, ("embeddings.model",), allowed=store_side)
    check = check_named(report, "embeddings.model")
    assert check.expected == MIN_COSINE and check.found < MIN_COSINE, (target, source, check)


def mark_clean_checkout(copy: RunCopy) -> Path:
    """The copy's receipt says the run started from a clean checkout of HEAD (the real tree may be dirty)."""
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    empty = sha256_bytes(b"")
    return copy.edit_receipt("vector_only", "calibration", lambda r: r["source"]["git"].update(
        available=True, commit=head, dirty=False, changed_paths=[], status_sha256=empty, diff_sha256=empty))


def test_an_unavailable_model_is_not_verified_and_not_eligible(run_copy: RunCopy,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # `from sentence_transformers import` fails
    aggregate = mark_clean_checkout(run_copy)
    report = validate(aggregate)
    check = check_named(report, "embeddings.model")
    assert check.status == NOT_VERIFIED, describe(report)
    assert "unavailable here" in check.detail and "sentence-transformers" in check.detail
    assert not report.failed, describe(report)
    assert [c.name for c in report.not_verified] == ["embeddings.model"]
    assert not report.eligible
    assert report.exit_code() == 3
    assert report.verdict().startswith("NOT ELIGIBLE for a claim: 0 failed, 1 not verified")
