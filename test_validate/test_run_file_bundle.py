"""A run file's whole flow into a bundle, on the tiny corpus, with measures chosen by name: calibration, freeze,
held-out, a comparison with the built-in system's runs on a chosen measure, the bundle; its reader's one command says
ranking attested on every line that rests on the run file, holds every figure of the texts (the chosen measures'
among them) to the validated artifacts, and fails a raised one."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.archives import tiny_archive
from fixtures.clean_checkout import mark_clean_checkout
from fixtures.cli import ROOT, child_env, tiny_cli_process
from harness.fixture.corpus_fixture import CorpusFixture, load_fixture
from harness.publish.bundle import make_bundle
from harness.validator.texts.check_texts import check_texts
from test_eval.test_evaluate_run_file import tied_run, write_trec

from .support import CleanRun

MEASURES = ("--measure", "P@5", "--measure", "nDCG@20")


def _ok(argv: list[str]) -> None:
    done = tiny_cli_process(argv, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def bundle(clean_run: CleanRun, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("run-file-bundle")
    archive = tiny_archive(root / "tiny.zip")
    corpus: CorpusFixture = load_fixture(clean_run.fixture_path)
    fixture = ["--corpus", str(corpus.path)]
    builtin = [*fixture, "--store-dir", str(root / "bstore"), "--output-dir", str(root / "builtin")]
    own = [*fixture, "--store-dir", str(root / "store"), "--output-dir", str(root / "out")]
    trec = write_trec(tied_run(corpus), root / "overlap.trec")
    _ok(["run", *builtin, "--split", "calibration", "--no-validate", *MEASURES])
    _ok(["freeze", *builtin, "--allow-dirty"])
    _ok(["run", *builtin, "--split", "heldout", "--no-validate", *MEASURES])
    _ok(["evaluate", str(trec), *own, "--split", "calibration", "--no-validate", *MEASURES])
    _ok(["freeze", *own, "--system", "run-file", "--allow-dirty"])
    _ok(["evaluate", *own, "--split", "heldout", "--no-validate", *MEASURES])
    for out in ("builtin", "out"):
        mark_clean_checkout(root / out)
    for split in ("calibration", "heldout"):
        _ok(["compare", "--output-dir", str(root / "out"), "--run", f"overlap={root / 'out'}", "--run",
             f"builtin={root / 'builtin'}", "--baseline", "builtin", "--split", split, "--archive", str(archive),
             "--measure", "P@5"])
    return make_bundle(root / "out", root / "bundle", archive), archive


def _read(bundle: Path, archive: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.validator", "--bundle", str(bundle),
                           "--archive", str(archive)], capture_output=True, text=True, timeout=600, cwd=ROOT,
                          env=child_env())


def test_the_bundle_of_a_run_file_reads_as_ranking_attested(bundle: tuple[Path, Path]) -> None:
    path, archive = bundle
    claims = (path / "CLAIMS.md").read_text(encoding="utf-8")
    assert "- Rankings: made outside the harness and read from the run file `overlap.trec`" in claims
    assert re.search(r"\| `run_file` \| 4 \|( [0-9.]+ \|){11} [0-9.]+ \| [0-9.]+ \|", claims), claims  # P@5, nDCG@20
    assert "| overlap/run_file \u2212 builtin/fts_only | P@5 |" in claims
    done = _read(path, archive)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    verdicts = [line for line in done.stdout.splitlines() if line.startswith("VERDICT")]
    assert all("ELIGIBLE (ranking attested)" in line for line in verdicts if "run_file" in line or "systems" in line)
    assert "of ranking attested: the rankings of 'overlap' were made outside the harness" in done.stdout
    texts = next(line for line in done.stdout.splitlines() if line.startswith("TEXTS"))
    assert "every one equals its artifact" in texts


def test_a_raised_chosen_measure_in_claims_fails_the_texts_check(bundle: tuple[Path, Path], tmp_path: Path) -> None:
    path, _ = bundle
    forged = Path(shutil.copytree(path, tmp_path / "forged"))
    claims = (forged / "CLAIMS.md").read_text(encoding="utf-8")
    row = next(line for line in claims.splitlines() if line.startswith("| overlap/run_file") and "| P@5 |" in line)
    cells = row.split(" | ")
    cells[2] = "+0.9000"
    (forged / "CLAIMS.md").write_text(claims.replace(row, " | ".join(cells), 1), encoding="utf-8")
    validated = sorted(p.relative_to(forged).as_posix() for p in (forged / "artifacts").glob("*.json"))
    failed = [c.detail for c in check_texts(forged, validated).failed]
    assert failed and all(detail.startswith("CLAIMS.md line") for detail in failed), failed
    line = claims.splitlines().index(row) + 1
    assert any(detail.startswith(f"CLAIMS.md line {line}:") and "+0.9000" in detail for detail in failed), failed
