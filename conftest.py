"""Command-line options and session fixtures; the work itself lives in `harness`."""

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from fixtures.session import locked_build
from harness.corpus.contract import scifact_contract
from harness.embedding.embedders import make_embedder
from harness.embedding.embedders.select import BACKENDS
from harness.errors import HarnessError
from harness.fixture.build import BuildReport

if TYPE_CHECKING:
    from harness.embedding.embedders.local import LocalEmbedder
    from harness.fixture.corpus_fixture import CorpusFixture
    from harness.systems.builtin.store.store import Store
    from harness.systems.protocol import SystemUnderTest

ROOT = Path(__file__).parent
# The benchmark suite's ratios, listed at the end of a run; the held-out gate (--spend-heldout) and the session's
# own held-out record; the final test's quality bars (--quality-bar); tests that need an optional install extra;
# whether a browser test may skip (--browser).
pytest_plugins = ["fixtures.bench_ratios", "fixtures.heldout_gate", "fixtures.quality_bars", "fixtures.extras",
                  "fixtures.browser_gate"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("scifact", "SciFact harness")
    group.addoption("--archive", default=os.environ.get("SCIFACT_ARCHIVE"),
                    help="local BEIR scifact.zip (default: $SCIFACT_ARCHIVE)")
    group.addoption("--work-dir", default=os.environ.get("SCIFACT_WORK_DIR", str(ROOT / "work-dir")),
                    help="fixture, embedding cache and downloads (default: $SCIFACT_WORK_DIR or ./work-dir)")
    group.addoption("--embedder", choices=BACKENDS, default="local", help="embedding backend")
    group.addoption("--model", default=None, help="embedding model (default: $SCIFACT_EMBED_MODEL or the backend's)")
    group.addoption("--store-dir", default=None, help="persisted store (default: WORK_DIR/store)")
    group.addoption("--output-dir", default=None, help="artifacts (default: WORK_DIR/results)")
    group.addoption("--system", default="builtin",
                    help="the system under test: builtin (default), a name registered in the "
                         "'scifact_harness.systems' entry-point group, or module:attribute")
    group.addoption("--milvus-uri", default=None,
                    help="--system=milvus: a Milvus server (token from $MILVUS_TOKEN); default: Milvus Lite in the "
                         "store dir")
    group.addoption("--spend-heldout", action="store_true",
                    help="run the tests that look at the held-out split (markers heldout, final, parity, "
                         "documented_path); without it they are held back whatever -m says")
    group.addoption("--require-receipts", action="store_true",
                    help="-m compare: a split whose receipts are absent fails instead of skipping (CI sets it)")
    group.addoption("--compare-run", action="append", default=[], metavar="NAME[:MODE]=DIR",
                    help="-m compare: also compare these evaluations of different systems (twice or more), as "
                         "`python -m harness compare --run` does, into --output-dir")
    group.addoption("--no-progress", action="store_true",
                    help="no progress bar while embedding (there is none anyway when the terminal is not a TTY)")


@contextmanager
def _on_the_terminal(pytestconfig: pytest.Config) -> Iterator[bool]:
    """Lift pytest's output capture for a long step so its progress bar (rate, ETA) reaches the terminal.
    Yields whether to show one: only when the real stderr is a TTY, without --no-progress, and not inside an
    xdist worker, whose output never reaches the terminal."""
    capture = pytestconfig.pluginmanager.getplugin("capturemanager")
    if pytestconfig.getoption("--no-progress") or hasattr(pytestconfig, "workerinput") or capture is None:
        yield False
        return
    with capture.global_and_fixture_disabled():
        yield sys.stderr.isatty()


def _configured_archive(pytestconfig: pytest.Config) -> Path | None:
    value = pytestconfig.getoption("--archive")
    if not value:
        return None
    path = Path(value)
    if not path.is_file():
        raise pytest.UsageError(f"--archive / SCIFACT_ARCHIVE names {path}, which does not exist")
    return path


@pytest.fixture(scope="session")
def scifact_archive(pytestconfig: pytest.Config) -> Path:
    """The real archive file, for tests that read it directly. Unset: skipped; set but missing: an error."""
    path = _configured_archive(pytestconfig)
    if path is None:
        pytest.skip("no SciFact archive configured: pass --archive=PATH or set SCIFACT_ARCHIVE")
    return path


@pytest.fixture(scope="session")
def work_dir(pytestconfig: pytest.Config) -> Path:
    return Path(pytestconfig.getoption("--work-dir")).resolve()


@pytest.fixture(scope="session")
def scifact_build(pytestconfig: pytest.Config, work_dir: Path) -> BuildReport:
    """The real SciFact corpus fixture, built once and reused by every xdist worker. Without a configured
    archive, a fixture already built in the work dir is reused (offline); failing that, the BEIR archive is
    downloaded (and verified) into the work dir. Anything missing ends in one line saying what to supply."""
    try:
        embedder = make_embedder(pytestconfig.getoption("--embedder"), pytestconfig.getoption("--model"))
        with _on_the_terminal(pytestconfig) as progress:
            return locked_build(scifact_contract(), work_dir=work_dir, embedder=embedder,
                                archive=_configured_archive(pytestconfig), progress=progress)
    except HarnessError as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="session")
def scifact_corpus(scifact_build: BuildReport) -> "CorpusFixture":
    from harness.fixture.corpus_fixture import load_fixture

    return load_fixture(scifact_build.fixture)


@pytest.fixture(scope="session")
def output_dir(pytestconfig: pytest.Config, work_dir: Path) -> Path:
    return Path(pytestconfig.getoption("--output-dir") or work_dir / "results").resolve()


@pytest.fixture(scope="session")
def scifact_store(pytestconfig: pytest.Config, work_dir: Path, scifact_corpus: "CorpusFixture") -> "Store":
    """Built once; the store's own lock makes concurrent xdist workers wait and then reuse it."""
    from harness.systems.builtin.config.search_config import LexicalConfig
    from harness.systems.builtin.store.store import build_store

    directory = Path(pytestconfig.getoption("--store-dir") or work_dir / "store").resolve()
    store, _ = build_store(directory, scifact_corpus, scifact_contract().namespace, LexicalConfig())
    return store


@pytest.fixture(scope="session")
def scifact_system(pytestconfig: pytest.Config, work_dir: Path, scifact_corpus: "CorpusFixture") -> "SystemUnderTest":
    """The system under test (--system), built once from the real fixture in --store-dir; the built-in system
    is the session's store."""
    from harness.systems.builtin.config.search_config import SearchConfig
    from harness.systems.registry.select import make_builder

    spec = pytestconfig.getoption("--system")
    directory = Path(pytestconfig.getoption("--store-dir") or work_dir / "store").resolve()
    try:
        uri = pytestconfig.getoption("--milvus-uri")
        builder = make_builder(scifact_contract().namespace, SearchConfig(), spec, {"uri": uri} if uri else None)
        system, _ = builder.build(scifact_corpus, directory)
    except HarnessError as exc:
        pytest.fail(str(exc), pytrace=False)
    return system


@pytest.fixture(scope="session")
def local_embedder() -> "LocalEmbedder":
    """The packaged all-MiniLM-L6-v2, loaded once per worker."""
    from harness.embedding.embedders.local import LocalEmbedder

    return LocalEmbedder()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int,
                            config: pytest.Config) -> None:
    """One line per mode and split with its metrics, latency, failures, the validator's verdict and the
    artifact path, then the next step. The lines come from the tests' recorded properties, which xdist
    carries from its workers to this process."""
    from harness.cli.summary import SUMMARY_PROPERTY, next_step
    from harness.modes import MODES

    recorded: list[dict[str, str]] = []
    for reports in terminalreporter.stats.values():
        for report in reports:
            recorded += [value for name, value in getattr(report, "user_properties", ())
                         if name == SUMMARY_PROPERTY and getattr(report, "when", "call") == "call"]
    if not recorded:
        return
    terminalreporter.section("SciFact results")
    splits = ("calibration", "heldout", "all")
    for entry in sorted(recorded, key=lambda e: (splits.index(e["split"]), MODES.index(e["mode"]))):
        terminalreporter.write_line(entry["line"])
    work_dir = Path(config.getoption("--work-dir")).resolve()
    store_dir = Path(config.getoption("--store-dir") or work_dir / "store").resolve()
    output_dir = Path(config.getoption("--output-dir") or work_dir / "results").resolve()
    last = max((e["split"] for e in recorded), key=splits.index)
    terminalreporter.write_line("")
    if exitstatus == 0:
        terminalreporter.write_line(next_step(last, work_dir=work_dir, corpus=work_dir / "scifact-corpus.json",
                                              store_dir=store_dir, output_dir=output_dir,
                                              system=config.getoption("--system")))
    else:
        terminalreporter.write_line("not every test passed: fix what failed above before the next step")
