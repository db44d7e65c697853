"""A bundle without the held-out runs its freeze names: forged (every held-out aggregate, row file and comparison
deleted, the manifest resealed) it fails, its CLAIMS.md's held-out figures naming no validated artifact; made honestly
by `bundle` from an output directory with a freeze and no held-out run, it says "calibration only: exploratory",
naming what is missing, shows no held-out figure, and its reader agrees."""

import shutil
from pathlib import Path

import pytest

from fixtures.bundle_reader import fresh_reader, reseal
from harness.publish.bundle import make_bundle
from harness.validator.cli import main

from .support import CleanRun, RunCopy
from .test_bundle import as_clean_checkout

pytestmark = pytest.mark.real_model
MODES = ("fts_only", "vector_only", "hybrid")
MISSING = [f"artifacts/tiny-test-{mode}-heldout.aggregate.json" for mode in MODES]


@pytest.fixture(scope="module")
def bundle(clean_run: CleanRun, tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = RunCopy.make(clean_run, tmp_path_factory.mktemp("complete-run"))
    as_clean_checkout(copy)
    return make_bundle(copy.out, tmp_path_factory.mktemp("complete-bundle") / "bundle")


def _judge(bundle: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["--bundle", str(bundle)])
    return code, capsys.readouterr().out


def test_a_bundle_whose_heldout_runs_were_deleted_and_resealed_fails(
        bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    fresh_reader(tmp_path, monkeypatch)
    forged = Path(shutil.copytree(bundle, tmp_path / "forged"))
    deleted = [p for p in (forged / "artifacts").glob("*") if "-heldout" in p.name and p.is_file()]
    deleted += [p for p in (forged / "validation").rglob("*") if "-heldout" in p.name and p.is_file()]
    assert len(deleted) >= 7
    for path in deleted:
        path.unlink()
    reseal(forged)
    code, out = _judge(forged, capsys)
    assert code == 1, out
    last = out.splitlines()[-1]
    assert "NOT ELIGIBLE for a claim" in last and "CLAIMS.md" in last, last
    assert "calibration only: exploratory" in last and all(name in last for name in MISSING), last
    held_out = [line for line in out.splitlines() if "texts.figures: CLAIMS.md line" in line]
    assert any("the row of hybrid on heldout" in line for line in held_out), held_out
    assert held_out and all("no figure without the validated artifact it came from" in line
                            for line in held_out if "heldout" in line), held_out


def test_an_honest_calibration_only_bundle_says_so_and_its_reader_agrees(
        clean_run: CleanRun, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    copy = RunCopy.make(clean_run, tmp_path / "run")
    as_clean_checkout(copy)
    for path in list(copy.out.glob("*")):
        if "-heldout" in path.name or "-all" in path.name:
            path.unlink()
    made = make_bundle(copy.out, tmp_path / "bundle")
    claims = (made / "CLAIMS.md").read_text(encoding="utf-8")
    assert "This bundle is calibration only: exploratory" in claims
    assert all(name.removeprefix("artifacts/") in claims for name in MISSING), claims[:2000]
    assert "### heldout" not in claims and "held-out (" not in claims
    assert not [p for p in (made / "artifacts").glob("*") if "-heldout" in p.name]
    fresh_reader(tmp_path, monkeypatch)
    code, out = _judge(made, capsys)
    assert code == 0, out
    last = out.splitlines()[-1]
    assert last.startswith("BUNDLE       ELIGIBLE, calibration only: exploratory"), last
    assert all(name in last for name in MISSING), last
    assert "every figure of the texts equals its artifact" in last
