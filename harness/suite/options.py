"""The plugin's command-line options. Every name starts with --scifact- (no clash with another project's options).
Write each value with '=' (`--scifact-work-dir=DIR`): pytest chooses its rootdir and configuration file before it
loads plugins, so it would take a value written after a space for a test path there (a session it misled that way is
refused, harness.suite.system_choice)."""

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from harness.cli.parsing.dataset import own_contract
from harness.corpus.contract import DEFAULT_DATASET, Contract, artifact_dataset, contract_named, dataset_names
from harness.embedding.embedders.backends import BACKENDS
from harness.errors import HarnessError

if TYPE_CHECKING:  # the plugin reads its options at every session's start; the built-in system only when needed
    from harness.systems.builtin.config.search_config import SearchConfig

ARCHIVE = "--scifact-archive"
DATASET = "--scifact-dataset"
CONTRACT = "--scifact-contract"
WORK_DIR = "--scifact-work-dir"
EMBEDDER = "--scifact-embedder"
MODEL = "--scifact-model"
STORE_DIR = "--scifact-store-dir"
OUTPUT_DIR = "--scifact-output-dir"
SYSTEM = "--scifact-system"
SYSTEM_PATH = "--scifact-system-path"
MILVUS_URI = "--scifact-milvus-uri"
SPEND_HELDOUT = "--scifact-spend-heldout"
REQUIRE_RECEIPTS = "--scifact-require-receipts"
COMPARE_RUN = "--scifact-compare-run"
NO_PROGRESS = "--scifact-no-progress"
QUALITY_BAR = "--scifact-quality-bar"
CONFIG = "--scifact-config"
SWEEP = "--scifact-sweep"


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("scifact", "SciFact harness (scifact_harness plugin)")
    group.addoption(ARCHIVE, default=None, metavar="PATH",
                    help="the dataset's local BEIR zip (default for SciFact: $SCIFACT_ARCHIVE; else a fixture already "
                         "built in the work dir, else a download from BEIR)")
    group.addoption(DATASET, choices=dataset_names(), default=None, metavar="NAME",
                    help=f"the dataset to evaluate: {', '.join(dataset_names())} (default: {DEFAULT_DATASET})")
    group.addoption(CONTRACT, default=None, metavar="FILE",
                    help="the contract of a collection of your own (written by `python -m harness contract`); pass "
                         f"its zip with {ARCHIVE}")
    group.addoption(WORK_DIR, default=os.environ.get("SCIFACT_WORK_DIR"), metavar="DIR",
                    help="fixture, embedding cache and downloads (default: $SCIFACT_WORK_DIR, else work-dir in "
                         "pytest's rootdir)")
    group.addoption(EMBEDDER, choices=BACKENDS, default="local", help="embedding backend (default: local)")
    group.addoption(MODEL, default=None, metavar="NAME",
                    help="embedding model: a sentence-transformers directory or org/name@<commit> from the Hugging "
                         "Face cache (default: $SCIFACT_EMBED_MODEL or the backend's)")
    group.addoption(STORE_DIR, default=None, metavar="DIR",
                    help="the system's persisted store (default: WORK_DIR/store for the built-in system, "
                         "WORK_DIR/store-SPEC for another: one store per system)")
    group.addoption(OUTPUT_DIR, default=None, metavar="DIR",
                    help="artifacts (default: WORK_DIR/results, or WORK_DIR/results-SPEC for a system other than the "
                         "built-in one)")
    group.addoption(SYSTEM, default="builtin", metavar="SPEC",
                    help="the system under test: builtin (default), a name registered in the "
                         "'scifact_harness.systems' entry-point group, or module:attribute")
    group.addoption(SYSTEM_PATH, action="append", default=[], metavar="DIR",
                    help=f"{SYSTEM} module:attribute: a directory holding the module, looked in when this "
                         "interpreter's path does not hold it (repeatable; default: pytest's rootdir)")
    group.addoption(MILVUS_URI, default=None, metavar="URI",
                    help=f"{SYSTEM} milvus: a Milvus server (token from $MILVUS_TOKEN); default: Milvus Lite in the "
                         "store dir")
    group.addoption(SPEND_HELDOUT, action="store_true",
                    help="run the tests that look at the held-out split (markers heldout, final, parity, "
                         "documented_path); without it they are held back whatever -m says")
    group.addoption(REQUIRE_RECEIPTS, action="store_true",
                    help="-m compare: a split whose receipts are absent fails instead of skipping (CI sets it)")
    group.addoption(COMPARE_RUN, action="append", default=[], metavar="NAME[:MODE]=DIR",
                    help="-m compare: also compare these evaluations of different systems (twice or more), as "
                         "`scifact-harness compare --run` does, into the output dir")
    group.addoption(NO_PROGRESS, action="store_true",
                    help="no progress while embedding (a bar on a terminal, lines in a log)")
    group.addoption(CONFIG, default=None, metavar="FILE",
                    help="the built-in system's configuration overrides as JSON, e.g. {\"rrf_k\": 40, \"lexical\": "
                         "{\"k1\": 1.2}} (one a sweep wrote); default: none")
    group.addoption(SWEEP, default=None, metavar="GRID",
                    help="-m sweep: the grid of the built-in system's configurations to evaluate on calibration, "
                         "each counted in the store's run ledger (as `scifact-harness sweep --grid GRID`)")
    group.addoption(QUALITY_BAR, action="append", default=[], metavar="MODE=VALUE",
                    help="-m final: a quality bar for the system under test: the all-query nDCG@10 of MODE must be at "
                         "least VALUE (repeatable); without one, a system other than the built-in one has no bar and "
                         "the test skips")


# the options that take a value: written after a space, pytest reads that value as a test path when it chooses its
# rootdir (harness.suite.system_choice.check_rootdir)
VALUED = (ARCHIVE, DATASET, CONTRACT, WORK_DIR, EMBEDDER, MODEL, STORE_DIR, OUTPUT_DIR, SYSTEM, SYSTEM_PATH, MILVUS_URI,
          COMPARE_RUN, QUALITY_BAR, CONFIG, SWEEP)


def work_dir(config: pytest.Config) -> Path:
    given = config.getoption(WORK_DIR)
    return Path(given).resolve() if given else (config.rootpath / "work-dir").resolve()


def _per_system(config: pytest.Config, name: str) -> str:
    """The built-in system's default directory name, or one of the system's own (a store holds one system); for a
    dataset other than SciFact, one of the dataset's own (an output directory holds one dataset's evaluation)."""
    spec = str(config.getoption(SYSTEM))
    name = name if spec == "builtin" else f"{name}-{re.sub(r'[^A-Za-z0-9_.-]+', '-', spec)}"
    contract = session_contract(config)
    return name if is_scifact(contract) else f"{name}-{artifact_dataset(contract.name)}"


CONTRACT_KEY = pytest.StashKey[Contract]()


def session_contract(config: pytest.Config) -> Contract:
    """The contract the session evaluates under: --scifact-contract FILE, else --scifact-dataset NAME, else
    SciFact's."""
    if CONTRACT_KEY not in config.stash:
        own, named = config.getoption(CONTRACT), config.getoption(DATASET)
        if own and named:
            raise pytest.UsageError(f"{DATASET} and {CONTRACT} both name a dataset: pass one")
        try:
            config.stash[CONTRACT_KEY] = (own_contract(Path(own), CONTRACT, DATASET) if own else
                                          contract_named(named or DEFAULT_DATASET))
        except HarnessError as exc:
            raise pytest.UsageError(str(exc)) from None
        archive = config.getoption(ARCHIVE)
        if archive and not Path(archive).is_file():
            raise pytest.UsageError(f"{ARCHIVE} {archive} is not a file; name the dataset's zip")
    return config.stash[CONTRACT_KEY]


def session_dataset(config: pytest.Config) -> str:
    """The name the session's artifacts carry (scifact, nfcorpus, a collection's own name)."""
    return artifact_dataset(session_contract(config).name)


def is_scifact(contract: Contract) -> bool:
    """Whether the contract is SciFact's: MTEB's quality bars and parity, and the suite's floor on a degenerate run,
    are SciFact's alone."""
    return artifact_dataset(contract.name) == DEFAULT_DATASET


def dataset_arguments(config: pytest.Config) -> dict[str, tuple[str, ...]]:
    """What the command line's next step needs to name the session's dataset and its archive (nothing for SciFact)."""
    own, named, archive = config.getoption(CONTRACT), config.getoption(DATASET), config.getoption(ARCHIVE)
    if not own and named in (None, DEFAULT_DATASET):
        return {}
    return {"dataset": ("--contract", own) if own else ("--dataset", named),
            "archive": ("--archive", archive) if archive else ()}


def store_dir(config: pytest.Config) -> Path:
    return Path(config.getoption(STORE_DIR) or work_dir(config) / _per_system(config, "store")).resolve()


def builtin_store_dir(config: pytest.Config) -> Path:
    """The built-in system's store (the scifact_store fixture): the store dir when the built-in system is under test;
    else the built-in system's own default, WORK_DIR/store, or beside a given store dir, STORE_DIR-builtin, so the
    store dir stays the system under test's own."""
    if config.getoption(SYSTEM) == "builtin":
        return store_dir(config)
    given = config.getoption(STORE_DIR)
    return Path(f"{given}-builtin").resolve() if given else (work_dir(config) / "store").resolve()


def output_dir(config: pytest.Config) -> Path:
    return Path(config.getoption(OUTPUT_DIR) or work_dir(config) / _per_system(config, "results")).resolve()


def given_path(config: pytest.Config, option: str) -> Path | None:
    """A path option's value as typed, relative to where pytest was started."""
    given = config.getoption(option)
    return (config.invocation_params.dir / given).resolve() if given else None


def search_config(config: pytest.Config) -> "SearchConfig":
    """The built-in system's configuration: the defaults, with --scifact-config's overrides."""
    from harness.systems.builtin.config.overrides import load_config
    from harness.systems.builtin.config.search_config import SearchConfig

    path = given_path(config, CONFIG)
    return SearchConfig() if path is None else load_config(path)
