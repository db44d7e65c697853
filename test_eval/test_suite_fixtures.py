"""The suite's fixtures as a repository of its own uses them (a pytest session in a scratch directory, its corpus the
tiny fixture in place of SciFact's): scifact_corpus with its typed records, scifact_system answering as the system
--scifact-system names, output_dir, and scifact_store, the built-in system's store, which keeps out of the directory
of a system of the user's own. The generated tests of `new-system` name the option they need when it is missing."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli.scaffold.skeleton import Skeleton
from harness.fixture.corpus_fixture import CorpusFixture

ROOT = Path(__file__).resolve().parents[1]
SYSTEMS_PAGE = ROOT / "docs" / "systems.md"
CONFTEST = '''\
import os
from pathlib import Path

import pytest

from harness.fixture.corpus_fixture import CorpusFixture, load_fixture


@pytest.fixture(scope="session")
def scifact_corpus() -> CorpusFixture:
    return load_fixture(Path(os.environ["TINY_FIXTURE"]))
'''
PROBE = '''\
import json
from pathlib import Path

from harness.suite.types import CorpusFixture, Query, SystemUnderTest


def test_probe(scifact_corpus: CorpusFixture, scifact_system: SystemUnderTest, scifact_store, output_dir: Path) -> None:
    query = scifact_corpus.split("calibration")[0]
    assert isinstance(query, Query)
    outcome = scifact_system.search("vector_only", query.text, scifact_corpus.query_vector(query.query_id), 3)
    print("PROBE " + json.dumps({"system": scifact_system.identity().name, "state": str(scifact_system.state_directory),
                                 "store": str(scifact_store.directory), "output": str(output_dir),
                                 "hits": [hit.doc_id for hit in outcome.hits]}))
'''


def _session(directory: Path, tiny: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TINY_FIXTURE": str(tiny)}
    env.pop("SCIFACT_ARCHIVE", None)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "scifact_harness", "-p", "no:cacheprovider", "-p",
                           "no:xdist", "-s", f"--scifact-work-dir={directory / 'work'}", *argv], cwd=directory,
                          env=env, capture_output=True, text=True, timeout=600, check=False)


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "mine"\nversion = "0"\n', encoding="utf-8")
    (tmp_path / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    (tmp_path / "test_probe.py").write_text(PROBE, encoding="utf-8")
    for name, text in Skeleton("my_search").files().items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(("spec", "name", "own"), [("my_search:SYSTEM", "my-search", "-my_search-SYSTEM"),
                                                   ("builtin", None, "")])
def test_the_fixtures_in_a_repository_of_its_own(repository: Path, tiny_corpus: CorpusFixture, spec: str,
                                                 name: str | None, own: str) -> None:
    """A system of the user's own has a store and results directory of its own; the built-in store stays
    WORK_DIR/store."""
    done = _session(repository, tiny_corpus.path, f"--scifact-system={spec}", "test_probe.py")
    assert done.returncode == 0, done.stdout + done.stderr
    [line] = [line for line in done.stdout.splitlines() if "PROBE " in line]
    probe = json.loads(line.split("PROBE ", 1)[1].removesuffix("."))
    work = repository / "work"
    assert (probe["state"], probe["store"], probe["output"]) == (str(work / f"store{own}"), str(work / "store"),
                                                                 str(work / f"results{own}"))
    assert name is None or probe["system"] == name
    assert len(probe["hits"]) == 3 and set(probe["hits"]) <= set(tiny_corpus.doc_ids)


def test_the_generated_tests_name_the_option_they_need(repository: Path, tiny_corpus: CorpusFixture) -> None:
    done = _session(repository, tiny_corpus.path, "test_my_search.py")
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.count("not 'my-search' in vector_only: pass --scifact-system=my_search:SYSTEM") >= 3, \
        done.stdout


def test_the_documented_example_runs_as_printed(repository: Path, tiny_corpus: CorpusFixture) -> None:
    page = SYSTEMS_PAGE.read_text(encoding="utf-8")
    [example] = re.findall(r"<!-- suite-fixtures-example -->\n```python\n(.*?)```", page, flags=re.S)
    (repository / "test_documented.py").write_text(example, encoding="utf-8")
    done = _session(repository, tiny_corpus.path, "--scifact-system=my_search:SYSTEM", "test_documented.py")
    assert done.returncode == 0 and "2 passed" in done.stdout, done.stdout + done.stderr
