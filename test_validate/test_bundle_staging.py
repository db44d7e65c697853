"""The bundle publishes the bytes it validated: its inputs are copied into the staging directory first, and a file
swapped in the output directory after that is not what gets validated, rendered or published (a forgery swapped in
before is refused by the validator). A staging directory left by a bundle killed with SIGKILL is removed by the next
bundle, and one a live bundle holds is not touched."""

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import harness.publish.bundle as bundle_module
from harness.publish.bundle import BundleError, make_bundle
from harness.publish.staging import lock_of

from .support import RunCopy, sha256_bytes, sha256_canonical
from .test_bundle import as_clean_checkout

ROOT = Path(__file__).resolve().parent.parent
SPLIT = "heldout"
FORGED_NDCG = 0.9876


def _forge_aggregate(copy: RunCopy) -> str:
    """The hybrid held-out receipt claims nDCG@10 0.9876: what a published claim must never show."""
    copy.edit_aggregate("hybrid", SPLIT, lambda a: a["metrics"].update(ndcg_at_10=FORGED_NDCG))
    return f"{FORGED_NDCG:.4f}"


def _forge_freeze(copy: RunCopy) -> str:
    """A freeze record of another date, its digest resealed: self-consistent, but not the one the runs ran under."""
    record = json.loads(copy.freeze_path.read_bytes())
    record["created_at"] = "2020-01-01T00:00:00Z"
    record["freeze_sha256"] = sha256_canonical({k: v for k, v in record.items() if k != "freeze_sha256"})
    copy.freeze_path.write_text(json.dumps(record, indent=1), encoding="utf-8")
    return str(record["freeze_sha256"])


FORGERIES: dict[str, tuple[Callable[[RunCopy], str], str]] = {
    "aggregate": (_forge_aggregate, "aggregate.metrics"),
    "freeze": (_forge_freeze, "freeze.recorded"),
}


@pytest.mark.real_model
@pytest.mark.parametrize("swapped", sorted(FORGERIES))
def test_a_file_swapped_after_staging_is_not_published(run_copy: RunCopy, tmp_path: Path, swapped: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    as_clean_checkout(run_copy)
    originals = {name: (run_copy.out / name).read_bytes()
                 for name in ("freeze.json", "tiny-test-hybrid-heldout.aggregate.json")}
    stage, forged = bundle_module._stage, []

    def stage_then_swap(output_dir: Path, staging: Path) -> tuple[list[tuple[Path, Path]], list[str]]:
        staged = stage(output_dir, staging)
        forged.append(FORGERIES[swapped][0](run_copy))  # between the copy and every use of it
        return staged
    monkeypatch.setattr(bundle_module, "_stage", stage_then_swap)
    bundle = make_bundle(run_copy.out, tmp_path / "bundle")
    in_place = {"aggregate": "tiny-test-hybrid-heldout.aggregate.json", "freeze": "freeze.json"}[swapped]
    assert (run_copy.out / in_place).read_bytes() != originals[in_place]  # the forgery is in the output directory
    published = {name: bundle / ("" if name == "freeze.json" else "artifacts") / name for name in originals}
    manifest = json.loads((bundle / "MANIFEST.json").read_bytes())["files"]
    for name, path in published.items():
        assert path.read_bytes() == originals[name], name
        assert manifest[path.relative_to(bundle).as_posix()] == sha256_bytes(originals[name])
    for shown in ("CLAIMS.md", "report.md", "report.html"):
        text = (bundle / shown).read_text(encoding="utf-8")
        assert forged[0] not in text, (shown, forged[0])
    assert json.loads(originals["freeze.json"])["freeze_sha256"] in (bundle / "CLAIMS.md").read_text(encoding="utf-8")


@pytest.mark.real_model
@pytest.mark.parametrize("swapped", sorted(FORGERIES))
def test_a_forgery_in_place_before_staging_is_refused(run_copy: RunCopy, tmp_path: Path, swapped: str) -> None:
    as_clean_checkout(run_copy)
    forge, check = FORGERIES[swapped]
    forge(run_copy)
    with pytest.raises(BundleError, match="not every aggregate is eligible") as caught:
        make_bundle(run_copy.out, tmp_path / "bundle")
    assert check in str(caught.value) and "tiny-test-hybrid-heldout.aggregate.json: NOT ELIGIBLE" in str(caught.value)
    assert not (tmp_path / "bundle").exists() and not list(tmp_path.glob(".bundle.partial-*"))


PAUSED_BUNDLE = """
import os, sys, time
from pathlib import Path
import harness.publish.bundle as bundle

def pause(staged, staging, output_dir, archive):
    marker = Path(sys.argv[3])
    marker.with_suffix(".tmp").write_text(str(staging), encoding="utf-8")
    os.replace(marker.with_suffix(".tmp"), marker)
    time.sleep(600)
    raise SystemExit("the test did not stop this bundle")

bundle._validated = pause
bundle.make_bundle(Path(sys.argv[1]), Path(sys.argv[2]))
"""


def _paused_bundle(out: Path, bundle_dir: Path, marker: Path) -> tuple[subprocess.Popen[bytes], Path]:
    """A real `make_bundle` in another process, stopped once its inputs are staged; and its staging directory."""
    with (marker.parent / f"{marker.name}.err").open("wb") as errors:
        process = subprocess.Popen([sys.executable, "-c", PAUSED_BUNDLE, str(out), str(bundle_dir), str(marker)],
                                   cwd=ROOT, stdout=subprocess.DEVNULL, stderr=errors)
    deadline = time.monotonic() + 300  # generous: the machine is shared; this is a wait, not a speed target
    while not marker.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            process.wait()
            raise AssertionError(f"the bundle never paused: {(marker.parent / f'{marker.name}.err').read_text()}")
        time.sleep(0.05)
    return process, Path(marker.read_text(encoding="utf-8"))


def test_a_killed_bundle_is_removed_by_the_next_one_and_a_live_one_is_left(run_copy: RunCopy, tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    parent = tmp_path / "bundles"

    def next_bundle() -> list[str]:
        """Another bundle in the same place (of nothing, so refused right after its cleanup); its stderr lines, the
        progress of its stages aside."""
        with pytest.raises(BundleError, match=r"holds no freeze\.json"):
            make_bundle(tmp_path / "nothing", parent / "next")
        return [line for line in capsys.readouterr().err.splitlines() if not line.startswith("bundle: ")]

    killed, dead = _paused_bundle(run_copy.out, parent / "first", tmp_path / "first.marker")
    os.kill(killed.pid, signal.SIGKILL)
    killed.wait()
    assert (dead / "artifacts" / "tiny-test-hybrid-heldout.aggregate.json").is_file() and lock_of(dead).is_file()
    assert next_bundle() == [f"removed {dead}: the staging directory of a bundle that stopped before it finished "
                             "(its process no longer holds its lock)"]
    assert not list(parent.iterdir())
    live, held = _paused_bundle(run_copy.out, parent / "second", tmp_path / "second.marker")
    try:
        assert next_bundle() == []
        assert (held / "artifacts" / "tiny-test-hybrid-heldout.aggregate.json").is_file() and lock_of(held).is_file()
        assert sorted(p.name for p in parent.iterdir()) == sorted([held.name, lock_of(held).name])
    finally:
        live.kill()
        live.wait()
    assert next_bundle() == [f"removed {held}: the staging directory of a bundle that stopped before it finished "
                             "(its process no longer holds its lock)"]
    assert not list(parent.iterdir())
