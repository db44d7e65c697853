"""Fuzz: any command line (known and unknown options, paths of every kind, odd values) ends in exit 0 or a clear
error (2, 3 or 4, one or two lines, no traceback) and never leaves a partly written output."""

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from fixtures.cli import run_tiny_cli
from fixtures.fuzz import FUZZ, LEFTOVERS
from harness.fixture.corpus_fixture import CorpusFixture

OPTIONS = {
    "build": ["--out", "--work-dir", "--archive", "--download-deadline", "--embedder", "--model", "--profile"],
    "run": ["--corpus", "--store-dir", "--output-dir", "--split", "--mode"],
    "freeze": ["--corpus", "--store-dir", "--output-dir", "--mode", "--hypothesis", "--hypothesis-baseline",
               "--hypothesis-metric", "--hypothesis-test", "--hypothesis-sided", "--hypothesis-alpha"],
    "bundle": ["--output-dir", "--bundle-dir"],
    "compare": ["--output-dir", "--split", "--baseline", "--seed", "--resamples", "--permutations"],
    "report": ["--output-dir", "--out", "--markdown"],
    "export": ["--output-dir", "--split", "--export-dir"],
}
FLAGS = ["--replace", "--allow-dirty", "--allow-unpinned", "--no-progress", "--debug", "--help", "-h", "--nope",
         "--no-validate", "--unvalidated"]
WORDS = ["calibration", "heldout", "all", "fts_only", "vector_only", "hybrid", "local", "ollama", "mteb-parity",
         "scifact-contract", "0", "-1", "1e309", "nan", "10", "", "--", "-", "\x00", "é", "\udcff", "one", "two",
         "hybrid > fts_only", "hybrid != fts_only", "0.05"]


@pytest.fixture
def places(tiny_corpus: CorpusFixture, tmp_path: Path) -> Iterator[list[str]]:
    """Paths of every kind, the tiny fixture among them, shared by the examples (so state builds up between them)."""
    shutil.copy2(tiny_corpus.path, tmp_path / "tiny.json")
    for sidecar in tiny_corpus.path.parent.glob("*.f32"):
        shutil.copy2(sidecar, tmp_path / sidecar.name)
    (tmp_path / "a-file").write_text("not json, not a zip\n")
    (tmp_path / "a-dir").mkdir()
    yield [str(tmp_path / name) for name in ("tiny.json", "a-file", "a-dir", "missing", "a-file/below", "store",
                                              "out", "a-dir/out", "bundle")] + ["", "relative/path", "\udcff.json"]


@FUZZ
@given(data=st.data())
def test_any_command_line(places: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                          data: st.DataObject) -> None:
    monkeypatch.delenv("SCIFACT_ARCHIVE", raising=False)  # the tiny contract has no URL: nothing is downloaded
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("SCIFACT_LOCK_TIMEOUT", "5")
    command = data.draw(st.sampled_from([*OPTIONS, "validate", ""]))
    argv = [command] if command else []
    for _ in range(data.draw(st.integers(min_value=0, max_value=7))):
        option = data.draw(st.sampled_from([*OPTIONS.get(command, []), *FLAGS]))
        argv.append(option)
        if option.startswith("--") and option not in FLAGS:
            argv.append(data.draw(st.sampled_from(places) | st.sampled_from(WORDS) | st.text(max_size=6)))
    outcome = run_tiny_cli(argv, capsys)
    event(f"{command or '(none)'}: exit {outcome.code}")
    validated_run = command == "run" and "--no-validate" not in argv and "--help" not in argv and "-h" not in argv
    # a run that completes ends with its own verdict: 1 in a work tree with uncommitted changes (source.clean)
    assert outcome.code in ((0, 1, 2, 3, 4) if validated_run else (0, 2, 3, 4)), outcome.err
    assert "Traceback" not in outcome.err or "--debug" in argv, outcome.err
    if outcome.code == 1:  # the validator's lines on stderr, then why the verdict is not ELIGIBLE
        assert outcome.err.strip().splitlines()[-1].startswith("error: the validator found "), outcome.err
    elif outcome.code and "--debug" not in argv:
        lines = outcome.err.strip().splitlines()
        assert 1 <= len(lines) <= 2 and lines[0].startswith("error: "), outcome.err
    root = Path(places[0]).parent
    for path in root.rglob("*"):
        assert not any(mark in path.name for mark in LEFTOVERS), f"left behind: {path}"
