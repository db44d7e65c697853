"""The session fixtures of the SciFact suite: the archive, the work dir, the corpus fixture (built once and shared by
every xdist worker), the output dir, the built-in store and the system under test."""

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from harness.cli.parsing.dataset import ARCHIVE_VARIABLE
from harness.corpus.contract import DEFAULT_DATASET
from harness.errors import HarnessError
from harness.suite import options
from harness.suite.system_choice import CHOICE

if TYPE_CHECKING:  # registered in every session: what a fixture needs is imported when a fixture is made
    from harness.embedding.embedders.local import LocalEmbedder
    from harness.fixture.build import BuildReport
    from harness.fixture.corpus_fixture import CorpusFixture
    from harness.systems.builtin.store.store import Store
    from harness.systems.protocol import SystemUnderTest


@contextmanager
def on_the_terminal(pytestconfig: pytest.Config) -> Iterator[bool]:
    """Lift pytest's output capture for a long step so its progress reaches stderr: a bar on a terminal, lines in a
    log (`harness.embedding.progress`). Yields whether to show it: without --scifact-no-progress, and not inside an
    xdist worker, whose output never reaches the terminal."""
    capture = pytestconfig.pluginmanager.getplugin("capturemanager")
    if pytestconfig.getoption(options.NO_PROGRESS) or hasattr(pytestconfig, "workerinput") or capture is None:
        yield False
        return
    with capture.global_and_fixture_disabled():
        yield True


def failed(exc: HarnessError) -> BaseException:
    """The test's failure with the harness's one-line message; raised `from None`, so pytest shows the message once,
    not again as the exception being handled."""
    return pytest.fail.Exception(str(exc), pytrace=False)


def configured_archive(pytestconfig: pytest.Config, dataset: str = DEFAULT_DATASET) -> Path | None:
    """`dataset`'s local archive: --scifact-archive when the session evaluates that dataset, else the zip a
    --scifact-contract packed beside it (NAME.zip), else $SCIFACT_ARCHIVE for SciFact (it never stands in for another
    dataset's)."""
    session = dataset == options.session_dataset(pytestconfig)
    given = pytestconfig.getoption(options.ARCHIVE) if session else None
    own = pytestconfig.getoption(options.CONTRACT) if session else None
    beside = Path(own).parent / f"{options.session_contract(pytestconfig).namespace}.zip" if own else None
    value = given or (str(beside) if beside is not None and beside.is_file() else None) or (
        os.environ.get(ARCHIVE_VARIABLE) if dataset == DEFAULT_DATASET else None)
    if not value:
        return None
    path = Path(value)
    if not path.is_file():
        raise pytest.UsageError(f"{options.ARCHIVE} / SCIFACT_ARCHIVE names {path}, which does not exist")
    return path


@pytest.fixture(scope="session")
def scifact_archive(pytestconfig: pytest.Config) -> Path:
    """The real archive file, for tests that read it directly. Unset: skipped; set but missing: an error."""
    path = configured_archive(pytestconfig)
    if path is None:
        pytest.skip(f"no SciFact archive configured: pass {options.ARCHIVE} PATH or set SCIFACT_ARCHIVE")
    return path


@pytest.fixture(scope="session")
def work_dir(pytestconfig: pytest.Config) -> Path:
    return options.work_dir(pytestconfig)


@pytest.fixture(scope="session")
def scifact_build(pytestconfig: pytest.Config, work_dir: Path) -> "BuildReport":
    """The session dataset's corpus fixture (SciFact's unless --scifact-dataset or --scifact-contract says
    otherwise), built once and reused by every xdist worker. Without a configured archive, a fixture already built in
    the work dir is reused (offline); failing that, the BEIR archive is downloaded (and verified) into the work dir.
    Anything missing ends in one line saying what to supply."""
    from harness.embedding.embedders.select import make_embedder
    from harness.evaluation.receipts.locations import place_model
    from harness.suite.session import locked_build

    contract, dataset = options.session_contract(pytestconfig), options.session_dataset(pytestconfig)
    try:
        embedder = make_embedder(pytestconfig.getoption(options.EMBEDDER), pytestconfig.getoption(options.MODEL))
        with on_the_terminal(pytestconfig) as progress:
            built = locked_build(contract, work_dir=work_dir, embedder=embedder,
                                 archive=configured_archive(pytestconfig, dataset), progress=progress)
        place_model(built.fixture.parent, embedder)  # a model of one's own, found by every validation of the session
        return built
    except HarnessError as exc:
        raise failed(exc) from None


@pytest.fixture(scope="session")
def scifact_corpus(scifact_build: "BuildReport") -> "CorpusFixture":
    from harness.fixture.corpus_fixture import load_fixture

    return load_fixture(scifact_build.fixture)


@pytest.fixture(scope="session")
def output_dir(pytestconfig: pytest.Config) -> Path:
    return options.output_dir(pytestconfig)


@pytest.fixture(scope="session")
def scifact_store(pytestconfig: pytest.Config, scifact_corpus: "CorpusFixture") -> "Store":
    """The built-in system's store, built once (the store's own lock makes concurrent xdist workers wait and then reuse
    it): in the store dir when the built-in system is under test, else in the built-in system's own
    (options.builtin_store_dir). A store directory of another system's is refused."""
    from harness.systems.builtin.store.store import build_store
    from harness.systems.registry.store_owner import claim

    directory = options.builtin_store_dir(pytestconfig)
    try:
        claim(directory, "builtin", options.SYSTEM)
        lexical = options.search_config(pytestconfig).lexical  # --scifact-config's, with the built-in system only
    except HarnessError as exc:
        raise failed(exc) from None
    store, _ = build_store(directory, scifact_corpus, options.session_contract(pytestconfig).namespace, lexical)
    return store


@pytest.fixture(scope="session")
def scifact_system(pytestconfig: pytest.Config, scifact_corpus: "CorpusFixture") -> "SystemUnderTest":
    """The system under test (--scifact-system), built once from the real fixture in the store dir."""
    from harness.systems.registry.select import make_builder

    choice = pytestconfig.stash[CHOICE]
    try:
        uri = pytestconfig.getoption(options.MILVUS_URI)
        builder = make_builder(options.session_contract(pytestconfig).namespace, options.search_config(pytestconfig),
                               choice.spec, {"uri": uri} if uri else None, directory=choice.directory,
                               option=options.SYSTEM)
        system, _ = builder.build(scifact_corpus, options.store_dir(pytestconfig))
    except HarnessError as exc:
        raise failed(exc) from None
    return system


@pytest.fixture(scope="session")
def local_embedder() -> "LocalEmbedder":
    """The packaged all-MiniLM-L6-v2, loaded once per worker."""
    from harness.embedding.embedders.local import LocalEmbedder

    return LocalEmbedder()
