"""A second bundle of the same bytes validates nothing again: every verdict and the fixture's full re-embedding are
reused and CLAIMS.md says so; each stage of a bundle is shown on stderr while it runs."""

import json
import os
import sqlite3
from pathlib import Path

import pytest

from harness.evaluation.history.heldout_record import RECORD_VARIABLE
from harness.publish.bundle import make_bundle

from .support import RunCopy
from .test_bundle import as_clean_checkout

pytestmark = pytest.mark.real_model


def _stored(bundle: Path) -> list[dict[str, object]]:
    return [json.loads(p.read_text(encoding="utf-8"))["notes"]["stored_verdict"]
            for p in sorted(bundle.glob("validation/*.validation.json"))]


def test_a_second_bundle_reuses_every_verdict(run_copy: RunCopy, tmp_path: Path, capfd: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    as_clean_checkout(run_copy)
    # the held-out receipts are checked against this machine's held-out record, which the session's other tests
    # append to: a private copy keeps the bytes the verdicts read unchanged between the two bundles
    record = tmp_path / "heldout-looks.sqlite3"
    with sqlite3.connect(os.environ[RECORD_VARIABLE]) as source, sqlite3.connect(record) as copy:
        source.backup(copy)
    monkeypatch.setenv(RECORD_VARIABLE, str(record))
    first = make_bundle(run_copy.out, tmp_path / "first")
    shown = capfd.readouterr().err
    for stage in ("bundle: staging the freeze record", "bundle: validating 6 aggregates with every text re-embedded",
                  "bundle: validating the comparisons", "bundle: writing the exports and the reports",
                  "bundle: writing CLAIMS.md and MANIFEST.json", "bundle: publishing"):
        assert stage in shown, shown
    assert [s["reused"] for s in _stored(first)] == [False] * 6
    assert len(list((run_copy.out / "validation").glob("*.full.verdict.json"))) == 6
    second = make_bundle(run_copy.out, tmp_path / "second")
    said = capfd.readouterr().err
    assert said.count("reused the verdict stored in") == 6, said
    assert [s["reused"] for s in _stored(second)] == [True] * 6
    claims = (second / "CLAIMS.md").read_text(encoding="utf-8")
    established, word = claims.split("## What was taken on the run's word", 1)
    # what the publisher's key sealed is the publisher's word, never what the validator established
    assert "- stored verdicts, reused from this machine's stored verdicts: 6 of 6" in word, claims
    assert "- re-embedding, a kept record reused: " in word and "by validator sha256:" in word, claims
    assert "reused" not in established.split("## What the validator established", 1)[1], claims
    assert "scifact-validate --bundle . --archive ../scifact.zip" in word
    rows = run_copy.rows_path("hybrid", "heldout")
    rows.write_bytes(rows.read_bytes().replace(b'"latency_ms":', b'"latency_ms": ', 1))
    with pytest.raises(Exception, match="not every aggregate is eligible"):
        make_bundle(run_copy.out, tmp_path / "third")
    said = capfd.readouterr().err
    assert "tiny-test-hybrid-heldout.full.verdict.json: the rows changed since" in said, said
