"""`python -m harness run` ends with its own validation of what it wrote, and exits as that verdict says
(docs/exit-codes.md): 0 only when ELIGIBLE, 1 when a check failed, never 0 beside a NOT ELIGIBLE line. The failure
is made certain here by an archive in $SCIFACT_ARCHIVE whose corpus member is not the pinned bytes (the validator
re-derives the fixture from it), so the verdict does not depend on the state of the work tree."""

import re
import subprocess
from pathlib import Path

from fixtures.archives import tiny_archive, tiny_members
from fixtures.cli import tiny_cli_process
from harness.errors import CHECK_FAILED
from harness.fixture.corpus_fixture import CorpusFixture


def _run(corpus: CorpusFixture, root: Path, archive: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return tiny_cli_process(["run", "--corpus", str(corpus.path), "--store-dir", str(root / "store"), "--output-dir",
                             str(root / "out"), "--split", "calibration", "--mode", "fts_only", *extra],
                            env={"SCIFACT_ARCHIVE": str(archive)}, timeout=300)


def test_a_run_its_own_validation_finds_not_eligible_exits_1(tiny_corpus: CorpusFixture, tmp_path: Path) -> None:
    corpus = next(name for name in tiny_members() if name.endswith("corpus.jsonl"))
    archive = tiny_archive(tmp_path / "other.zip", {corpus: tiny_members()[corpus] + b"\n"})
    done = _run(tiny_corpus, tmp_path / "validated", archive)
    assert done.returncode == CHECK_FAILED, done.stdout + done.stderr
    [line] = [line for line in done.stdout.splitlines() if line.startswith("fts_only     calibration")]
    assert re.search(r"  NOT ELIGIBLE \(failed: [^)]*archive\.members", line), line
    assert "Traceback" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("error: the validator found fts_only calibration NOT ELIGIBLE for a claim"), done.stderr
    assert "archive.members" in last and "-m harness.validator " in last and "--replace" in last, last

    unvalidated = _run(tiny_corpus, tmp_path / "unvalidated", archive, "--no-validate")
    assert unvalidated.returncode == 0, unvalidated.stdout + unvalidated.stderr
    assert "not validated (--no-validate)" in unvalidated.stdout
