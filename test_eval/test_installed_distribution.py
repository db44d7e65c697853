"""The harness installed the usual way (a wheel, not editable), as a user's repository gets it: its runs record the
distribution (name, version, the digest of its RECORD's files) and never ask git, whose answer would be the user's
repository; the validator installed beside it verifies that identity and names a changed file; the freeze binds it,
and a run under a changed installation is refused. The wheel is built from this source and installed into a
directory of its own, run from outside this clone."""

import base64
import hashlib
import json
import shutil
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from fixtures.archives import TINY_CONTRACT_PATH
from fixtures.installed_wheel import install_wheel, site_packages
from harness import record_files
from harness.fixture.corpus_fixture import CorpusFixture
from harness.validator.core import installed
from harness.validator.pipeline import validate

ROOT = Path(__file__).resolve().parents[1]
IDENTITY = """
import json
from harness.evaluation.receipts import provenance
from harness.validator.core.installed import installed_here
here = installed_here()
print(json.dumps({"harness": provenance.harness_source(), "validator": here and here.__dict__}))
"""


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv holding the wheel installed the usual way; the libraries it needs are this interpreter's (a .pth)."""
    return install_wheel(tmp_path_factory.mktemp("installed"))


def _site(venv: Path) -> Path:
    return site_packages(venv)


def _python(venv: Path, *argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(venv / "bin" / "python"), *argv], cwd=cwd, capture_output=True, text=True,
                          timeout=900, check=False)


def _identity(venv: Path) -> dict[str, Any]:
    done = _python(venv, "-c", IDENTITY, cwd=venv.parent)
    assert done.returncode == 0, done.stderr
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def _edit(venv: Path, relative: str) -> None:
    path = _site(venv) / relative
    path.write_bytes(path.read_bytes() + b"\n# changed after install\n")


def test_an_installed_harness_is_identified_by_its_record_not_by_git(venv: Path, tmp_path: Path) -> None:
    found = _identity(venv)
    recorded, here = found["harness"]["distribution"], found["validator"]
    assert recorded["available"] and recorded["name"] == "scifact-harness" and recorded["changed"] == []
    assert recorded["files"] > 100 and recorded["files_sha256"].startswith("sha256:")
    assert found["harness"]["git"] == {"available": False, "reason": f"installed distribution scifact-harness "
                                       f"{recorded['version']} (files {recorded['files_sha256']})"}
    # the validator's own reading of the same RECORD agrees, by its own code
    assert (here["name"], here["version"], here["files_sha256"], here["changed"]) == (
        recorded["name"], recorded["version"], recorded["files_sha256"], [])


def test_the_clone_is_no_distribution() -> None:
    from harness.evaluation.receipts import distribution
    from harness.validator.core.installed import installed_here

    assert distribution.installed()["available"] is False and installed_here() is None


@pytest.mark.real_data
def test_a_run_from_the_installed_wheel_is_eligible_and_a_changed_file_is_named(
        venv: Path, scifact_archive: Path, scifact_corpus: CorpusFixture,
        tmp_path_factory: pytest.TempPathFactory) -> None:
    work = tmp_path_factory.mktemp("user-repository")
    subprocess.run(["git", "init", "-q", str(work)], check=True)  # the user's own repository: never consulted
    store, output = work / "store", work / "results"
    done = _python(venv, "-m", "harness", "run", "--corpus", str(scifact_corpus.path), "--store-dir", str(store),
                   "--output-dir", str(output), "--split", "calibration", "--mode", "fts_only", "--no-validate",
                   cwd=work)
    assert done.returncode == 0, done.stdout + done.stderr
    [aggregate] = output.glob("*.aggregate.json")
    receipt = json.loads(aggregate.read_bytes())["receipt"]
    assert receipt["source"]["distribution"]["available"] and not receipt["source"]["git"]["available"]

    validator = str(venv / "bin" / "scifact-validate")  # the console script, as a user types it
    verdict = subprocess.run([validator, str(aggregate)], cwd=work, capture_output=True, text=True, timeout=900,
                             check=False)
    assert verdict.returncode == 0 and "ELIGIBLE" in verdict.stdout, verdict.stdout + verdict.stderr
    assert any(line.split()[:2] == ["PASS", "source.distribution:"] for line in verdict.stdout.splitlines())

    # beside a clone, the installed distribution cannot be verified: not eligible, and why
    report = validate(aggregate)
    assert [c.name for c in report.not_verified] == ["source.distribution"], report.lines()

    _edit(venv, "harness/modes.py")
    try:
        verdict = _python(venv, "-m", "harness.validator", str(aggregate), cwd=work)
    finally:
        _restore(venv, "harness/modes.py")
    assert verdict.returncode == 1, verdict.stdout + verdict.stderr
    failed = [line for line in verdict.stdout.splitlines() if line.startswith("FAIL")]
    assert any("source.distribution" in line and "harness/modes.py" in line for line in failed), verdict.stdout


def _restore(venv: Path, relative: str) -> None:
    path = _site(venv) / relative
    path.write_bytes(path.read_bytes().removesuffix(b"\n# changed after install\n"))


@pytest.mark.real_data
def test_the_freeze_binds_the_installation(venv: Path, scifact_archive: Path, scifact_corpus: CorpusFixture,
                                           tmp_path_factory: pytest.TempPathFactory) -> None:
    work = tmp_path_factory.mktemp("frozen")
    common = ["--corpus", str(scifact_corpus.path), "--store-dir", str(work / "store"), "--output-dir",
              str(work / "results"), "--mode", "fts_only"]
    done = _python(venv, "-m", "harness", "run", *common, "--split", "calibration", "--no-validate", cwd=work)
    assert done.returncode == 0, done.stdout + done.stderr
    _edit(venv, "harness/modes.py")
    try:
        refused = _python(venv, "-m", "harness", "freeze", *common, cwd=work)
        assert refused.returncode == 3 and "harness/modes.py" in refused.stderr, refused.stderr  # the freeze's gate
        assert "pip install --force-reinstall" in refused.stderr, refused.stderr
    finally:
        _restore(venv, "harness/modes.py")
    frozen = _python(venv, "-m", "harness", "freeze", *common, cwd=work)
    assert frozen.returncode == 0, frozen.stdout + frozen.stderr
    record = json.loads((work / "results" / "freeze.json").read_bytes())
    assert record["source"]["distribution"]["available"] and record["source"]["distribution"]["changed"] == []

    _edit(venv, "harness/modes.py")
    try:
        heldout = _python(venv, "-m", "harness", "run", *common, "--split", "heldout", "--no-validate", cwd=work)
    finally:
        _restore(venv, "harness/modes.py")
    assert heldout.returncode == 3, heldout.stdout + heldout.stderr  # refused by the freeze's gate
    assert "source.distribution.changed" in heldout.stderr and "--force-reinstall" in heldout.stderr, heldout.stderr
    assert not list((work / "results").glob("*heldout*")), "a refused run wrote an artifact"


def test_the_suite_is_collected_from_a_venv_inside_the_repository(venv: Path) -> None:
    """pytest skips a `.venv` under the directory it collects; the suite inside it is still brought in, alone."""
    repository = venv.parent
    shutil.copy(ROOT / "examples" / "numpy_dense.py", repository / "my_search.py")
    (repository / "pyproject.toml").write_text('[project]\nname = "mine"\nversion = "0"\n', encoding="utf-8")
    done = _python(venv, "-m", "pytest", "-p", "scifact_harness", "-p", "no:cacheprovider", "--collect-only", "-q",
                   "-m", "calibration", "--scifact-system=my_search:SYSTEM", f"--scifact-work-dir={repository / 'w'}",
                   cwd=repository)
    assert done.returncode == 0, done.stdout + done.stderr
    collected = [line for line in done.stdout.splitlines() if "::" in line]
    assert [line.split("::")[1] for line in collected] == [f"test_split[{mode}-calibration]" for mode in
                                                           ("fts_only", "vector_only", "hybrid")], done.stdout
    assert all("/site-packages/harness/suite/test_scifact.py" in line for line in collected), collected


def _dist_info(venv: Path) -> Path:
    [info] = _site(venv).glob("scifact_harness-*.dist-info")
    return info


def _distribution(venv: Path) -> metadata.Distribution:
    return metadata.PathDistribution(_dist_info(venv))


def test_the_validator_reads_the_installed_record_file_by_file(venv: Path) -> None:
    """The validator's own reading of the wheel's RECORD, in this process: the harness's identity rule gives the same
    digest, a file changed after the install is named, and an entry hashed by another algorithm than sha256 is
    neither part of the identity nor taken for a changed file (its bytes cannot be held to a sha256)."""
    distribution = _distribution(venv)
    record = distribution.read_text("RECORD") or ""
    clean = installed._checked(distribution)
    assert (clean.name, clean.changed, clean.files_sha256) == ("scifact-harness", [], record_files.files_sha256(record))
    _edit(venv, "harness/modes.py")
    try:
        assert installed._checked(distribution).changed == ["harness/modes.py"]
    finally:
        _restore(venv, "harness/modes.py")
    target = "harness/validator/cli.py"
    data = (_site(venv) / target).read_bytes()
    other = "sha512=" + base64.urlsafe_b64encode(hashlib.sha512(data).digest()).decode().rstrip("=")
    record_path = _dist_info(venv) / "RECORD"
    rows = [row.split(",") for row in record.splitlines()]
    edited = "\n".join(",".join([row[0], other, *row[2:]] if row[0] == target else row) for row in rows) + "\n"
    record_path.write_text(edited, encoding="utf-8")
    try:
        found = installed._checked(_distribution(venv))
    finally:
        record_path.write_text(record, encoding="utf-8")
    assert found.changed == [], found.changed
    assert found.files_sha256 == record_files.files_sha256(edited) != clean.files_sha256


def test_a_tiny_run_from_the_installed_wheel_is_eligible_and_a_changed_file_is_named(
        venv: Path, tiny_corpus: CorpusFixture, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The stand-in for the SciFact test above in the default suite: the tiny corpus under its contract file, run by
    the installed harness from a repository of the user's own, judged by the installed validator's console script."""
    work = tmp_path_factory.mktemp("user-repository-tiny")
    subprocess.run(["git", "init", "-q", str(work)], check=True)  # the user's own repository: never consulted
    output = work / "results"
    done = _python(venv, "-m", "harness", "run", "--contract", str(TINY_CONTRACT_PATH), "--corpus",
                   str(tiny_corpus.path), "--store-dir", str(work / "store"), "--output-dir", str(output), "--split",
                   "calibration", "--mode", "fts_only", "--no-validate", cwd=work)
    assert done.returncode == 0, done.stdout + done.stderr
    [aggregate] = output.glob("*.aggregate.json")
    receipt = json.loads(aggregate.read_bytes())["receipt"]
    assert receipt["source"]["distribution"]["available"] and not receipt["source"]["git"]["available"]
    validator = str(venv / "bin" / "scifact-validate")
    verdict = subprocess.run([validator, str(aggregate)], cwd=work, capture_output=True, text=True, timeout=900,
                             check=False)
    assert any(line.split()[:2] == ["PASS", "source.distribution:"] for line in verdict.stdout.splitlines()), (
        verdict.stdout + verdict.stderr)
    _edit(venv, "harness/modes.py")
    try:
        verdict = _python(venv, "-m", "harness.validator", str(aggregate), cwd=work)
    finally:
        _restore(venv, "harness/modes.py")
    failed = [line for line in verdict.stdout.splitlines() if line.startswith("FAIL")]
    assert verdict.returncode == 1 and any("source.distribution" in line and "harness/modes.py" in line
                                           for line in failed), verdict.stdout


def test_on_the_tiny_corpus_the_freeze_binds_the_installation(venv: Path, tiny_corpus: CorpusFixture,
                                                              tmp_path_factory: pytest.TempPathFactory) -> None:
    """The stand-in for the SciFact test above in the default suite: a freeze under a changed installed file is
    refused naming it; frozen unchanged, a held-out run under a changed file is refused and writes nothing."""
    work = tmp_path_factory.mktemp("frozen-tiny")
    common = ["--contract", str(TINY_CONTRACT_PATH), "--corpus", str(tiny_corpus.path), "--store-dir",
              str(work / "store"), "--output-dir", str(work / "results"), "--mode", "fts_only"]
    done = _python(venv, "-m", "harness", "run", *common, "--split", "calibration", "--no-validate", cwd=work)
    assert done.returncode == 0, done.stdout + done.stderr
    _edit(venv, "harness/modes.py")
    try:
        refused = _python(venv, "-m", "harness", "freeze", *common, cwd=work)
    finally:
        _restore(venv, "harness/modes.py")
    assert refused.returncode == 3 and "harness/modes.py" in refused.stderr, refused.stderr
    assert "pip install --force-reinstall" in refused.stderr, refused.stderr
    frozen = _python(venv, "-m", "harness", "freeze", *common, cwd=work)
    assert frozen.returncode == 0, frozen.stdout + frozen.stderr
    record = json.loads((work / "results" / "freeze.json").read_bytes())
    assert record["source"]["distribution"]["available"] and record["source"]["distribution"]["changed"] == []
    _edit(venv, "harness/modes.py")
    try:
        heldout = _python(venv, "-m", "harness", "run", *common, "--split", "heldout", "--no-validate", cwd=work)
    finally:
        _restore(venv, "harness/modes.py")
    assert heldout.returncode == 3, heldout.stdout + heldout.stderr
    assert "source.distribution.changed" in heldout.stderr and "--force-reinstall" in heldout.stderr, heldout.stderr
    assert not list((work / "results").glob("*heldout*")), "a refused run wrote an artifact"
