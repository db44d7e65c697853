"""The final test's quality bars (harness/suite/quality_bars.py), in a pytest session of their own: MTEB's bars hold the
built-in system only; a system of its own meets the bars declared with --scifact-quality-bar MODE=VALUE, and with
none the test is skipped saying "no quality bar", never passed. The final test itself needs the real SciFact data, so
the session runs a test that hands the same fixture the system's name and its all-query nDCG@10, as the final test
does."""

import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.cli import child_env

ROOT = Path(__file__).resolve().parent.parent
FINAL = '''
def test_final(quality_bars):
    quality_bars({system!r}, {ndcg!r})
'''
PLUGIN = {"vector_only": 0.658}  # the example plugin's figure, below the 0.687 of MTEB's bm25s


def _session(tmp_path: Path, system: str, ndcg: dict[str, float], *bars: str,
             extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (tmp_path / "test_final.py").write_text(FINAL.format(system=system, ndcg=ndcg), encoding="utf-8")
    options = [x for bar in bars for x in ("--scifact-quality-bar", bar)]
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "scifact_harness", "-p", "no:cacheprovider",
                           "-p", "no:xdist", "-rs", "-q", "-c", str(tmp_path / "pytest.ini"), "--rootdir",
                           str(tmp_path), *options, *extra, str(tmp_path / "test_final.py")],
                          cwd=tmp_path, env=child_env(), capture_output=True, text=True, timeout=300)


def test_a_system_of_its_own_without_a_bar_is_skipped_saying_so(tmp_path: Path) -> None:
    done = _session(tmp_path, "numpy-dense", PLUGIN)
    assert done.returncode == 0 and "1 skipped" in done.stdout, done.stdout + done.stderr
    assert "no quality bar for system 'numpy-dense'" in done.stdout
    assert "--scifact-quality-bar MODE=VALUE" in done.stdout


@pytest.mark.parametrize(("bar", "passes"), [("vector_only=0.687", False), ("vector_only=0.65", True)])
def test_a_declared_bar_holds_a_system_of_its_own(tmp_path: Path, bar: str, passes: bool) -> None:
    done = _session(tmp_path, "numpy-dense", PLUGIN, bar)
    assert ("1 passed" if passes else "1 failed") in done.stdout, done.stdout + done.stderr
    if not passes:
        assert "system 'numpy-dense': vector_only nDCG@10 0.6580 is below the declared bar 0.687" in done.stdout


def test_a_bar_for_a_mode_the_system_did_not_run_fails_naming_it(tmp_path: Path) -> None:
    done = _session(tmp_path, "numpy-dense", PLUGIN, "hybrid=0.7")
    assert "1 failed" in done.stdout, done.stdout + done.stderr
    assert "--scifact-quality-bar sets a bar for hybrid, which system 'numpy-dense' did not run" in done.stdout


def test_the_builtin_system_is_held_to_mteb_and_to_declared_bars(tmp_path: Path) -> None:
    meets = {"fts_only": 0.68, "vector_only": 0.62, "hybrid": 0.70}
    assert "1 passed" in _session(tmp_path, "builtin", meets).stdout
    assert "1 failed" in _session(tmp_path, "builtin", {**meets, "fts_only": 0.658}).stdout
    assert "1 failed" in _session(tmp_path, "builtin", meets, "hybrid=0.72").stdout


def test_on_another_dataset_mtebs_bars_hold_no_system(tmp_path: Path) -> None:
    """MTEB's figures are SciFact's: on NFCorpus the built-in system is held to the declared bars, or skipped."""
    meets = {"fts_only": 0.68, "vector_only": 0.62, "hybrid": 0.70}
    other = ("--scifact-dataset", "nfcorpus")
    done = _session(tmp_path, "builtin", {**meets, "fts_only": 0.30}, extra=other)
    assert done.returncode == 0 and "1 skipped" in done.stdout, done.stdout + done.stderr
    assert "no quality bar for this dataset" in done.stdout
    assert "1 failed" in _session(tmp_path, "builtin", meets, "hybrid=0.72", extra=other).stdout
    assert "1 passed" in _session(tmp_path, "builtin", {**meets, "fts_only": 0.30}, "hybrid=0.7", extra=other).stdout


def test_a_malformed_bar_is_a_usage_error(tmp_path: Path) -> None:
    done = _session(tmp_path, "numpy-dense", PLUGIN, "vector_only=high")
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    assert "--scifact-quality-bar 'vector_only=high': write MODE=VALUE" in done.stderr
