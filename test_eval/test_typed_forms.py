"""What the harness prints matches how it was called: each next command, usage line and hint names the harness, pytest
and the validator in the form the user typed, found by really running the commands in child processes from a
directory of the user's own: the console scripts by their path (`.venv/bin/scifact-harness`), the console scripts by
their bare name as PATH finds them (`scifact-harness`), and the modules under this interpreter by its path
(`.venv/bin/python -m harness`)."""

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from fixtures.archives import TINY_CONTRACT_PATH, tiny_archive
from harness.fixture.corpus_fixture import CorpusFixture

BIN = Path(sys.executable).parent
TOOLS = {"harness": ("scifact-harness", "harness"), "validator": ("scifact-validate", "harness.validator"),
         "pytest": ("pytest", "pytest")}
WITHOUT_THE_VENV = os.pathsep.join(p for p in os.environ.get("PATH", os.defpath).split(os.pathsep)
                                   if p and Path(p).resolve() != BIN.resolve())


@dataclass(frozen=True)
class Form:
    """One way of starting the tools: the words that start each, the PATH it is typed under, and the words each
    printed command must start with."""

    name: str

    def typed(self, tool: str) -> list[str]:
        script, module = TOOLS[tool]
        return {"by path": [f".venv/bin/{script}"], "on PATH": [script],
                "module": [".venv/bin/python", "-m", module]}[self.name]

    def printed(self, tool: str) -> str:
        return " ".join(self.typed(tool))

    @property
    def path(self) -> str:
        return f"{BIN}{os.pathsep}{WITHOUT_THE_VENV}" if self.name == "on PATH" else WITHOUT_THE_VENV

    def run(self, directory: Path, tool: str, *argv: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        env = {key: value for key, value in os.environ.items() if key not in ("PYTEST_ADDOPTS", "PYTHONPATH")}
        return subprocess.run([*self.typed(tool), *argv], cwd=directory, env={**env, "PATH": self.path},
                              capture_output=True, text=True, timeout=timeout, check=False)


FORMS = [Form("by path"), Form("on PATH"), Form("module")]


def user_directory(path: Path) -> Path:
    """A directory of the user's own whose `.venv` is this interpreter's virtual environment."""
    path.mkdir(parents=True, exist_ok=True)
    (path / ".venv").symlink_to(BIN.parent, target_is_directory=True)
    return path


def _collection(directory: Path) -> Path:
    """A collection of six documents and three judged queries, in BEIR's layout."""
    directory.mkdir()
    documents = [{"_id": f"d{n}", "text": f"cells signal number {n}"} for n in range(6)]
    queries = [{"_id": f"q{n}", "text": f"signal {n}"} for n in range(3)]
    (directory / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in documents), encoding="utf-8")
    (directory / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries), encoding="utf-8")
    (directory / "qrels").mkdir()
    (directory / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"q{n}\td{n}\t1\n" for n in range(3)), encoding="utf-8")
    return directory


@pytest.mark.parametrize("form", FORMS, ids=lambda form: form.name)
def test_usage_errors_name_the_command_as_typed(form: Form, tmp_path: Path) -> None:
    here = user_directory(tmp_path / "mine")
    for tool in ("harness", "validator"):
        done = form.run(here, tool, "--no-such-option")
        assert done.returncode == 2 and not done.stdout, done.stderr
        assert done.stderr.startswith(f"error: {form.printed(tool)}: "), done.stderr
        assert done.stderr.rstrip().endswith(f"usage: {form.printed(tool)} --help"), done.stderr


@pytest.mark.parametrize("form", FORMS, ids=lambda form: form.name)
def test_contract_and_new_system_print_their_next_commands_as_typed(form: Form, tmp_path: Path) -> None:
    here = user_directory(tmp_path / "mine")
    _collection(here / "collection")
    declared = form.run(here, "harness", "contract", "--dataset-dir", "collection", "--name", "mine", "--out",
                        "contracts/mine.json", "--calibration-count", "1")
    assert declared.returncode == 0, declared.stderr
    assert declared.stdout.splitlines()[-1] == (
        f"commit the contract and keep the archive; then: {form.printed('harness')} build --contract "
        "contracts/mine.json --out work-dir/mine-corpus.json --work-dir work-dir")  # the zip beside it is found
    written = form.run(here, "harness", "new-system", "my_search")
    assert written.returncode == 0, written.stderr
    pytest_form = form.printed("pytest")
    assert (f"    {pytest_form} -p scifact_harness --scifact-system=my_search:SYSTEM test_my_search.py\n"
            f"    {pytest_form} -p scifact_harness -m calibration --scifact-system=my_search:SYSTEM\n"
            ) in written.stdout, written.stdout


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_archive(tmp_path_factory.mktemp("archive") / "tiny.zip")


@pytest.mark.parametrize("form", FORMS, ids=lambda form: form.name)
def test_run_compare_and_freeze_print_their_next_commands_as_typed(form: Form, tmp_path: Path,
                                                                    tiny_corpus: CorpusFixture) -> None:
    here = user_directory(tmp_path / "mine")
    common = ["--corpus", str(tiny_corpus.path), "--contract", str(TINY_CONTRACT_PATH), "--store-dir", "work/store",
              "--output-dir", "work/results"]
    harness = form.printed("harness")
    done = form.run(here, "harness", "run", *common, "--split", "calibration", "--no-validate")
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith(f"next, after committing: freeze the configuration:\n  {harness} freeze --corpus "
                                f"{tiny_corpus.path} --store-dir work/store --output-dir work/results --contract "
                                f"{TINY_CONTRACT_PATH}\n"), done.stdout
    compared = form.run(here, "harness", "compare", "--output-dir", "work/results", "--split", "calibration",
                        "--no-validate")
    assert compared.returncode == 0, compared.stderr
    assert compared.stdout.splitlines()[-1] == (f"check it independently: {form.printed('validator')} --comparison "
                                                "work/results/tiny-test-comparison-calibration.json")
    frozen = form.run(here, "harness", "freeze", *common, "--allow-dirty")
    assert frozen.returncode == 0, frozen.stderr
    assert f"\n  {harness} run --corpus {tiny_corpus.path} --store-dir work/store --output-dir work/results " \
           "--split heldout --contract" in frozen.stdout, frozen.stdout
    heldout = form.run(here, "harness", "run", *common, "--split", "heldout", "--no-validate")
    assert heldout.returncode == 0, heldout.stderr
    assert heldout.stdout.endswith(f"next: the bundle:\n  {harness} bundle --output-dir work/results --bundle-dir "
                                   "work/bundle\n"), heldout.stdout


def test_the_suite_prints_its_next_step_as_pytest_was_typed(tmp_path: Path, archive: Path) -> None:
    """The plugin's summary, in a repository of the user's own: the freeze by the harness's console script when pytest
    was started by its own, by the module under this interpreter when by `python -m pytest`."""
    here = user_directory(tmp_path / "mine")
    (here / "pyproject.toml").write_text('[project]\nname = "mine"\nversion = "0"\n', encoding="utf-8")
    for form in FORMS:
        done = form.run(here, "pytest", "-p", "scifact_harness", "-p", "no:cacheprovider", "-p", "no:xdist", "-m",
                        "calibration", "-k", "vector_only", f"--scifact-contract={TINY_CONTRACT_PATH}",
                        f"--scifact-archive={archive}", "--scifact-work-dir=work", "--scifact-no-progress")
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
        assert (f"next, after committing: freeze the configuration:\n  {form.printed('harness')} freeze --corpus "
                "work/tiny-test-corpus.json --store-dir work/store-tiny-test --output-dir work/results-tiny-test "
                f"--contract {TINY_CONTRACT_PATH}\n") in done.stdout, (form.name, done.stdout[-3000:])
