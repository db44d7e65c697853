"""MANIFEST.json held to the bundle's bytes, and what the bundle's verdict makes of it: a bundle of a few files
written here, each fault alone (the list's own digest edited, a file changed, added or missing), and the exit code
of a bundle whose only fault is its manifest; the inputs a bundle carries, each run's store its own. The reader's whole
command on a real bundle is test_bundle_reader.py."""

import json
from pathlib import Path

import pytest

from harness.validator.bundle_manifest import MANIFEST, manifest_problems
from harness.validator.bundle_reader import BundleOptions, Verdict, bundle_lines, carried_inputs
from harness.validator.core.digests import sha256_canonical, sha256_file
from harness.validator.core.report import Report
from harness.validator.options import ELIGIBLE, FAILED


def _bundle(root: Path) -> Path:
    bundle = root / "bundle"
    (bundle / "artifacts").mkdir(parents=True)
    (bundle / "CLAIMS.md").write_text("# Claims\n", encoding="utf-8")
    (bundle / "artifacts" / "run.aggregate.json").write_text("{}\n", encoding="utf-8")
    _seal(bundle)
    return bundle


def _seal(bundle: Path, **change: object) -> None:
    files = {p.relative_to(bundle).as_posix(): sha256_file(p) for p in sorted(bundle.rglob("*"))
             if p.is_file() and p.name != MANIFEST}
    (bundle / MANIFEST).write_text(json.dumps({"files": files, "manifest_sha256": sha256_canonical(files), **change}),
                                   encoding="utf-8")


def test_a_sealed_bundle_has_no_problem(tmp_path: Path) -> None:
    assert manifest_problems(_bundle(tmp_path)) == []


def test_the_lists_own_digest_is_recomputed(tmp_path: Path) -> None:
    """Every file as listed, the list's digest not the one of the list: an edited list is named."""
    bundle = _bundle(tmp_path)
    _seal(bundle, manifest_sha256=sha256_canonical({"CLAIMS.md": "sha256:" + "0" * 64}))
    assert manifest_problems(bundle) == [f"{MANIFEST}: its manifest_sha256 is not the digest of its file list (the "
                                         "list was edited); fetch the bundle again from its publisher (or ask them for "
                                         "the file as published)"]


@pytest.mark.parametrize("fault", ["changed", "added", "missing"])
def test_each_file_is_held_to_the_list(fault: str, tmp_path: Path) -> None:
    bundle = _bundle(tmp_path)
    claims = bundle / "CLAIMS.md"
    if fault == "changed":
        claims.write_text("# Claims, edited\n", encoding="utf-8")
    elif fault == "added":
        (bundle / "extra.txt").write_text("x\n", encoding="utf-8")
    else:
        claims.unlink()
    [problem] = manifest_problems(bundle)
    assert problem.startswith({"changed": "CLAIMS.md changed", "added": "extra.txt is not in",
                               "missing": "CLAIMS.md is missing"}[fault]), problem


def _eligible() -> Report:
    report = Report("artifacts/run.aggregate.json")
    report.ok("aggregate.schema", "the aggregate is well formed")
    assert report.eligible
    return report


def test_a_bundle_whose_only_fault_is_its_manifest_is_not_eligible(tmp_path: Path) -> None:
    """Every artifact eligible, the manifest not holding: the bundle fails, exit 1, naming MANIFEST.json."""
    verdicts = [Verdict("artifacts/run.aggregate.json", _eligible())]
    lines, code = bundle_lines(tmp_path, [], verdicts)
    assert code == ELIGIBLE and lines[-1].startswith("BUNDLE       ELIGIBLE for a claim"), lines
    lines, code = bundle_lines(tmp_path, ["CLAIMS.md changed"], verdicts)
    assert code == FAILED == 1, lines
    assert lines[-1].startswith("BUNDLE       NOT ELIGIBLE for a claim") and "MANIFEST.json" in lines[-1], lines
    assert "MANIFEST     FAIL  CLAIMS.md changed" in lines


def _runs_bundle(root: Path) -> Path:
    """A bundle's inputs as `bundle` lays them out: the bundle's own run's store and fixture; compared run `a` with a
    store of its own, `b` on the bundle's own store (no copy), `c` with a fixture of its own."""
    bundle = root / "bundle"
    for folder in ("inputs/store", "inputs/fixture", "inputs/runs/a/store", "inputs/runs/c/fixture",
                   "artifacts/runs/a", "artifacts/runs/b", "artifacts/runs/c"):
        (bundle / folder).mkdir(parents=True)
    (bundle / "inputs/fixture/own.json").write_text("{}", encoding="utf-8")
    (bundle / "inputs/runs/c/fixture/other.json").write_text("{}", encoding="utf-8")
    return bundle


def test_each_compared_run_reads_its_own_carried_store(tmp_path: Path) -> None:
    bundle = _runs_bundle(tmp_path)
    with carried_inputs(bundle, BundleOptions()) as inputs:
        assert inputs.store_dirs == {None: bundle / "inputs/store", "a": bundle / "inputs/runs/a/store",
                                     "b": bundle / "inputs/store", "c": bundle / "inputs/store"}
        assert inputs.fixture == bundle / "inputs/fixture/own.json"
        assert inputs.run_fixtures == {"c": bundle / "inputs/runs/c/fixture/other.json"}


def test_a_readers_store_replaces_the_bundles_own_never_a_runs_own(tmp_path: Path) -> None:
    bundle, mine = _runs_bundle(tmp_path), tmp_path / "my-store"
    with carried_inputs(bundle, BundleOptions(store_dir=mine)) as inputs:
        assert inputs.store_dirs == {None: mine, "a": bundle / "inputs/runs/a/store", "b": mine, "c": mine}


def test_without_the_bundles_own_store_only_carried_stores_are_read(tmp_path: Path) -> None:
    bundle = _runs_bundle(tmp_path)
    (bundle / "inputs/store").rmdir()
    with carried_inputs(bundle, BundleOptions()) as inputs:
        assert inputs.store_dirs == {"a": bundle / "inputs/runs/a/store"}


@pytest.mark.parametrize("manifest", ['["CLAIMS.md"]', '{"files": ["CLAIMS.md"]}', '{"files": {"CLAIMS.md": 1}}'])
def test_a_manifest_without_its_file_list_is_named(manifest: str, tmp_path: Path) -> None:
    bundle = _bundle(tmp_path)
    (bundle / MANIFEST).write_text(manifest, encoding="utf-8")
    assert manifest_problems(bundle) == [f"{MANIFEST} has no 'files' object of path to sha256; fetch the bundle again "
                                         "from its publisher (or ask them for the file as published)"]


def test_a_symbolic_link_to_a_directory_is_named_and_never_followed(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "run.aggregate.json").write_text("{}\n", encoding="utf-8")
    (bundle / "artifacts" / "more").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    assert manifest_problems(bundle) == ["artifacts/more is a symbolic link: a bundle holds files only; fetch the "
                                         "bundle again from its publisher (or ask them for the file as published)"]
