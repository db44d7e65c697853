"""Input the validator cannot judge is input you can fix (docs/exit-codes.md: 2), not a failed check (1): an AGGREGATE
that is not an aggregate at all, or a malformed fixture, freeze record or archive. The command line names the file,
the problem and the fix on stderr, prints no verdict for it and stores none; and each verdict it does print names
the file it judges."""

import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.cli import child_env

from .support import RunCopy

ROOT = Path(__file__).resolve().parent.parent
USAGE = 2


def _validator(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.validator", *map(str, args)], cwd=ROOT, env=child_env(),
                          capture_output=True, text=True, timeout=600, check=False)


@pytest.mark.parametrize("content", [b"\x00\x01 not json", b'{"not": "an aggregate"}\n', b"[1, 2]\n"],
                         ids=["bytes", "another-object", "a-list"])
def test_a_file_that_is_not_an_aggregate_exits_2_and_no_verdict_is_kept(tmp_path: Path, content: bytes) -> None:
    garbage = tmp_path / "scifact-fts_only-calibration.aggregate.json"
    garbage.write_bytes(content)
    done = _validator(garbage, "--no-embedding-check")
    assert done.returncode == USAGE, done.stdout + done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"error: aggregate {garbage} ") and "python -m harness run" in last, done.stderr
    assert "ELIGIBLE" not in done.stdout and "Traceback" not in done.stderr, done.stdout + done.stderr
    assert not (tmp_path / "validation").exists(), "a verdict was stored beside a file that is not an aggregate"


@pytest.mark.parametrize("option", ["--fixture", "--freeze", "--archive"])
def test_a_malformed_fixture_freeze_record_or_archive_exits_2(run_copy: RunCopy, tmp_path: Path, option: str) -> None:
    malformed = tmp_path / "malformed"
    malformed.write_bytes(b'{"torn": ')
    aggregate = run_copy.aggregate_path("fts_only", "heldout")
    done = _validator(aggregate, "--no-embedding-check", option, malformed)
    assert done.returncode == USAGE, done.stdout + done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("error: ") and str(malformed) in last and "; pass the" in last, done.stderr
    assert not list((aggregate.parent / "validation").glob("*verdict*")), "a verdict was stored"


def test_each_verdict_names_its_file(run_copy: RunCopy) -> None:
    aggregates = [run_copy.aggregate_path(mode, "calibration") for mode in ("fts_only", "hybrid")]
    done = _validator(*aggregates, "--no-embedding-check")
    verdicts = [line for line in done.stdout.splitlines() if line.startswith(("ELIGIBLE", "NOT ELIGIBLE"))]
    assert [line.rsplit(" — ", 1)[-1] for line in verdicts] == [str(a.relative_to(ROOT)) if a.is_relative_to(ROOT)
                                                              else str(a) for a in aggregates], done.stdout
