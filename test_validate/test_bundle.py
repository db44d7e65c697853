"""The publishable bundle: made only from eligible aggregates, with a manifest that resolves and CLAIMS.md."""

import json
from pathlib import Path

import pytest

from fixtures.archives import tiny_archive
from fixtures.clean_checkout import mark_clean_checkout
from harness.errors import RefusedError
from harness.evaluation.comparison.artifact import CompareRequest, compare
from harness.publish.bundle import BundleError, make_bundle
from harness.publish.verdicts import validator_judgement

from .report_check import check_report
from .support import MODES, SPLITS, RunCopy, sha256_bytes, sha256_canonical, sha256_file

ROOT = Path(__file__).resolve().parent.parent


def as_clean_checkout(copy: RunCopy) -> None:
    """The copy's receipts as a fresh clone would write them (fixtures.clean_checkout)."""
    mark_clean_checkout(copy.out)


@pytest.mark.real_model
def test_a_bundle_of_eligible_runs(run_copy: RunCopy, tmp_path: Path) -> None:
    as_clean_checkout(run_copy)
    bundle = make_bundle(run_copy.out, tmp_path / "bundle")
    names = {p.relative_to(bundle).as_posix() for p in bundle.rglob("*") if p.is_file()}
    expected_artifacts = {f"artifacts/tiny-test-{m}-{s}.{ext}" for m in MODES for s in SPLITS
                          for ext in ("jsonl", "aggregate.json")}
    assert expected_artifacts <= names
    assert {f"validation/tiny-test-{m}-{s}.validation.json" for m in MODES for s in SPLITS} <= names
    assert {"CLAIMS.md", "MANIFEST.json", "freeze.json", "fixture-metadata.json", "configuration.json",
            "environment.json", "report.html", "report.md"} <= names
    assert {f"artifacts/tiny-test-comparison-{s}.json" for s in SPLITS} <= names
    assert {f"validation/comparisons/tiny-test-comparison-{s}.validation.json" for s in SPLITS} <= names
    assert {f"exports/tiny-test-{m}-{s}.{ext}" for m in MODES for s in SPLITS for ext in ("run", "scores.tsv")} <= names
    assert {f"exports/tiny-test-{s}.qrels" for s in SPLITS} | {f"exports/tiny-test-per-query-{s}.csv"
                                                             for s in SPLITS} <= names
    assert {f"exports/tiny-test-{m}-{s}.{ext}" for m in MODES for s in SPLITS for ext in ("ranx.json", "mteb.json")} | {
        f"exports/tiny-test-{s}.qrels.json" for s in SPLITS} | {
        "exports/summary.csv", "exports/summary.json", "exports/tiny-test-headline.tex"} <= names
    summary = json.loads((bundle / "exports/summary.json").read_text())["rows"]
    assert len(summary) == len(MODES) * len(SPLITS)
    for row in summary:  # the bundle's own verdicts, and every split compared, so every interval is there
        assert row["verdict"] == "ELIGIBLE" and "in this bundle" in row["verdict_by"]
        comparison = json.loads((bundle / f"artifacts/tiny-test-comparison-{row['split']}.json").read_text())
        assert row["ndcg_at_10_ci_low"] == comparison["modes"][row["mode"]]["ndcg_at_10"]["ci_low"]
        assert row["aggregate_sha256"] == sha256_file(bundle / f"artifacts/tiny-test-{row['mode']}-{row['split']}"
                                                      ".aggregate.json")
    manifest = json.loads((bundle / "MANIFEST.json").read_text())
    assert set(manifest["files"]) == names - {"MANIFEST.json"}
    assert all(sha256_file(bundle / name) == digest for name, digest in manifest["files"].items())
    assert manifest["manifest_sha256"] == sha256_canonical(manifest["files"])
    for name in names:
        if name.startswith("validation/"):
            assert json.loads((bundle / name).read_text())["eligible"] is True
    assert check_report(bundle / "report.html", bundle / "artifacts") == ["heldout", "calibration"]
    assert "UNVALIDATED" not in (bundle / "report.html").read_text()
    claims = (bundle / "CLAIMS.md").read_text()
    for text in ("## What they do not prove", "superiority over another system", "matryoshka:",
                 "Latency scope:", "### heldout", "`hybrid`", "Freeze:", "## What the validator established",
                 "replay.fusion: all 4 answered rows agree", "every one of", "bit for bit",
                 '"scope": "full"', "## What was taken on the run's word", "- history, ", "- machine, ",
                 "## Comparisons", "### held-out (4 queries)",
                 "- hybrid \u2212 fts_only on held-out: +0.0000 nDCG@10", "not significant after Holm",
                 "superiority of one retrieval method", "other hosts"):
        assert text in claims, text
    # one latency attestation per bundled run, each naming its run (a run's own figures and contention verdict)
    latency = [line for line in claims.splitlines() if line.startswith("- latency, ")]
    named = [run for line in latency for run in line.split(":", 1)[0].removeprefix("- latency, ").split(", ")]
    assert sorted(named) == sorted(f"{m} {s}" for m in MODES for s in SPLITS), latency
    assert all("measured by the run and not re-measurable" in line for line in latency)
    assert "documents" not in json.loads((bundle / "fixture-metadata.json").read_text())
    assert not list(tmp_path.glob(".bundle.partial-*"))


def test_one_failing_aggregate_refuses_the_whole_bundle(run_copy: RunCopy, tmp_path: Path) -> None:
    as_clean_checkout(run_copy)
    run_copy.edit_aggregate("hybrid", "heldout", lambda a: a["metrics"].update(ndcg_at_10=0.99))
    with pytest.raises(BundleError, match=r"tiny-test-hybrid-heldout.aggregate.json: NOT ELIGIBLE") as caught:
        make_bundle(run_copy.out, tmp_path / "bundle")
    assert "aggregate.metrics" in str(caught.value)
    assert not (tmp_path / "bundle").exists() and not list(tmp_path.glob(".bundle.partial-*"))


def test_missing_heldout_receipts_and_an_existing_bundle_are_refused(run_copy: RunCopy, tmp_path: Path) -> None:
    (tmp_path / "taken").mkdir()
    with pytest.raises(BundleError, match="never overwritten"):
        make_bundle(run_copy.out, tmp_path / "taken")
    run_copy.aggregate_path("fts_only", "heldout").unlink()
    with pytest.raises(BundleError, match=r"lacks tiny-test-fts_only-heldout\.aggregate\.json"):
        make_bundle(run_copy.out, tmp_path / "bundle")


@pytest.mark.real_model
def test_a_stale_comparison_refuses_the_bundle(run_copy: RunCopy, tmp_path: Path) -> None:
    """A comparison in the output directory that no longer matches the rows is refused, not bundled."""
    as_clean_checkout(run_copy)
    compare(CompareRequest(run_copy.out, "calibration", validate_inputs=False), validator_judgement)
    edit = json.loads((run_copy.out / "tiny-test-comparison-calibration.json").read_text())
    edit["inputs"][0]["rows_sha256"] = sha256_bytes(b"other rows")
    (run_copy.out / "tiny-test-comparison-calibration.json").write_text(json.dumps(edit, indent=1))
    with pytest.raises(RefusedError, match="not every comparison is eligible") as caught:
        make_bundle(run_copy.out, tmp_path / "bundle")
    assert "comparison.inputs" in str(caught.value)
    assert not (tmp_path / "bundle").exists() and not list(tmp_path.glob(".bundle.partial-*"))


@pytest.mark.real_model
def test_no_bundle_text_names_a_local_place_not_even_the_archives(run_copy: RunCopy, tmp_path: Path) -> None:
    """The archive the validator re-derived from is named by its file, its directory in words; so is every other
    place of this machine, in every text the bundle writes itself (the signed files name no place at all)."""
    as_clean_checkout(run_copy)
    archive = tiny_archive(tmp_path / "where-the-archive-lies" / "tiny.zip")
    bundle = make_bundle(run_copy.out, tmp_path / "bundle", archive)
    texts = {path.relative_to(bundle).as_posix(): path.read_text(encoding="utf-8") for path in bundle.rglob("*")
             if path.is_file() and path.suffix in {".md", ".html", ".json", ".csv", ".tsv", ".tex", ".run", ".qrels"}}
    assert "[the archive's directory]/tiny.zip" in texts["CLAIMS.md"]  # the validator's note, its place in words
    local = [str(tmp_path), str(tmp_path.resolve()), "where-the-archive-lies", str(Path.home()) + "/"]
    found = [(name, place) for name, text in texts.items() for place in local if place in text]
    assert not found, found
