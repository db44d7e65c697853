"""A system's source is the user's own files: a module loaded from any installed distribution, wherever the venv lies
(a repository's own .venv included) and whatever name it registers under, is bound as that distribution (name,
version, RECORD digest), never as the system's source; the built-in system's freeze binds the harness itself, never
the repository it is installed in; and a file the system runs that git ignores refuses the freeze."""

import importlib.metadata
import site
import subprocess
import sys
from pathlib import Path

import pytest

from harness.corpus.contract import Contract
from harness.evaluation.gates.dirty_trees import dirty_trees
from harness.evaluation.gates.freeze import FreezeError, freeze_configuration
from harness.evaluation.receipts import provenance
from harness.evaluation.run_split import Evaluation, run_split
from harness.fixture.corpus_fixture import CorpusFixture
from harness.record_files import files_sha256
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.distributions import owners_of_file
from harness.systems.plugin.bound import loaded_code
from harness.systems.registry.select import make_builder

SITE = tuple(Path(p).resolve() for p in site.getsitepackages())
SYSTEM = '''"""A system whose ranking lives in a helper git ignores."""

from pathlib import Path

import numpy as np

import ignored_helper
from harness.systems.plugin import DENSE_EXACT, Result


class Tracked:
    name, version, modes, declarations = "tracked", "1.0.0", ("vector_only",), {"dense": DENSE_EXACT}

    def configuration(self):
        return {}

    def build(self, corpus, directory: Path) -> bool:
        np.save(directory / "vectors.npy", corpus.vectors)
        self.open(corpus, directory)
        return True

    def open(self, corpus, directory: Path) -> None:
        self.path, self.doc_ids, self.matrix = directory / "vectors.npy", corpus.doc_ids, corpus.vectors

    def parts(self):
        return {"vectors": self.path}

    def search(self, mode, text, vector, top_k):
        scores = self.matrix @ vector
        return [Result(self.doc_ids[i], float(scores[i])) for i in ignored_helper.order(scores, self.doc_ids)[:top_k]]


SYSTEM = Tracked()
'''
HELPER = "def order(scores, doc_ids):\n    return sorted(range(len(scores)), key=lambda i: (-scores[i], doc_ids[i]))\n"


def test_a_compiled_module_under_a_short_name_in_a_venv_inside_the_root_is_its_distributions() -> None:
    import scipy.sparse  # its compiled modules register under short top-level names too (_csparsetools)

    assert "_csparsetools" in sys.modules and scipy.sparse is not None
    root = Path(sys.prefix).resolve().parent  # the directory holding this venv, as a repository holds its .venv
    loaded = loaded_code(root)
    for name, module in loaded.modules.items():
        file = (root / module["source_path"]) if "source_path" in module else Path(module["path"])
        assert not any(file.resolve().is_relative_to(directory) for directory in SITE), (name, module)
    assert "_csparsetools" not in loaded.modules
    assert loaded.distributions["scipy"] == importlib.metadata.version("scipy")
    record = importlib.metadata.distribution("scipy").read_text("RECORD")
    assert record is not None and loaded.distribution_files["scipy"] == files_sha256(record)


def test_a_file_is_owned_by_the_distribution_whose_list_names_it_whatever_its_module_is_called() -> None:
    import scipy.sparse._csparsetools as compiled

    path = Path(str(compiled.__file__)).resolve()
    assert owners_of_file(path, "_csparsetools", SITE) == ("scipy",)  # the short name's distribution is none
    assert owners_of_file(path, "scipy.sparse._csparsetools", SITE) == ("scipy",)
    assert owners_of_file(Path(__file__).resolve(), "test_system_sources", SITE) == ()


def test_the_source_tree_of_the_harness_itself_or_of_an_installed_distribution_is_no_git_work_tree() -> None:
    root = Path(sys.prefix).resolve().parent
    assert provenance.system_tree(root, is_harness=True) == {"kind": provenance.HARNESS_ITSELF, "git": None}
    # site-packages inside a repository's .venv: bound by its files, never by the repository's git state
    assert provenance.system_tree(SITE[0], is_harness=False) == {"kind": provenance.DIGEST_ONLY, "git": None}


def test_the_built_in_systems_freeze_binds_the_harness_not_the_repository_holding_it(
        tiny_corpus: CorpusFixture, tiny: Contract, tmp_path: Path) -> None:
    run_split(Evaluation(corpus=tiny_corpus.path, store_dir=tmp_path / "store", output_dir=tmp_path / "out",
                         split="calibration"), tiny)
    builder = make_builder(tiny.namespace, SearchConfig(), "builtin")
    try:
        system = builder.open(tiny_corpus, tmp_path / "store")
        frozen = freeze_configuration(fixture=tiny_corpus, system=system, contract=tiny, modes=system.modes,
                                      output_dir=tmp_path / "out", argv=[], allow_dirty=True, replace=False)
    finally:
        builder.close()
    assert frozen.record["source"]["system_tree"] == {"kind": provenance.HARNESS_ITSELF, "git": None}


def _git(repository: Path, *arguments: str) -> None:
    subprocess.run(["git", "-C", str(repository), "-c", "user.name=t", "-c", "user.email=t@localhost", *arguments],
                   check=True, capture_output=True)


def test_a_file_the_system_runs_that_git_ignores_refuses_the_freeze(
        tiny_corpus: CorpusFixture, tiny: Contract, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repository = tmp_path / "repository"
    repository.mkdir()
    (repository / "tracked_system.py").write_text(SYSTEM, encoding="utf-8")
    (repository / "ignored_helper.py").write_text(HELPER, encoding="utf-8")
    (repository / ".gitignore").write_text("ignored_helper.py\n__pycache__/\n", encoding="utf-8")
    _git(repository, "init", "-q")
    _git(repository, "add", "-A")
    _git(repository, "commit", "-qm", "a system whose helper is ignored")
    monkeypatch.syspath_prepend(str(repository))
    spec, out = "tracked_system:SYSTEM", tmp_path / "out"
    run_split(Evaluation(corpus=tiny_corpus.path, store_dir=tmp_path / "store", output_dir=out, split="calibration",
                         system=spec, system_directory=repository), tiny)
    builder = make_builder(tiny.namespace, SearchConfig(), spec, directory=repository)
    try:
        system = builder.open(tiny_corpus, tmp_path / "store")
        with pytest.raises(FreezeError, match=r"the system's own work tree .*repository, whose files the system runs "
                                              r"but git does not track \(ignored: ignored_helper\.py;"):
            freeze_configuration(fixture=tiny_corpus, system=system, contract=tiny, modes=system.modes,
                                 output_dir=out, argv=[], allow_dirty=False, replace=False)
        (repository / ".gitignore").write_text("__pycache__/\n", encoding="utf-8")
        _git(repository, "add", "-A")
        _git(repository, "commit", "-qm", "the helper is the system's own: committed")
        frozen = freeze_configuration(fixture=tiny_corpus, system=system, contract=tiny, modes=system.modes,
                                      output_dir=out, argv=[], allow_dirty=True, replace=False)
    finally:
        builder.close()
    assert frozen.record["source"]["system_tree"]["kind"] == provenance.OWN_WORK_TREE
    assert not [found for found in dirty_trees(frozen.record, repository) if "system's own" in found]
    assert frozen.record["system"]["modules"]["ignored_helper"]["source_path"] == "ignored_helper.py"
