"""The plugin's command-line options. Every name starts with --scifact- (no clash with another project's options).
Write each value with '=' (`--scifact-work-dir=DIR`): pytest chooses its rootdir and configuration file before it
loads plugins, so it would take a value written after a space for a test path there (a session it misled that way is
refused, harness.suite.system_choice)."""

import os
import re
from pathlib import Path

import pytest

from harness.embedding.embedders.backends import BACKENDS

ARCHIVE = "--scifact-archive"
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


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("scifact", "SciFact harness (scifact_harness plugin)")
    group.addoption(ARCHIVE, default=os.environ.get("SCIFACT_ARCHIVE"), metavar="PATH",
                    help="local BEIR scifact.zip (default: $SCIFACT_ARCHIVE; else a fixture already built in the "
                         "work dir, else a download from BEIR)")
    group.addoption(WORK_DIR, default=os.environ.get("SCIFACT_WORK_DIR"), metavar="DIR",
                    help="fixture, embedding cache and downloads (default: $SCIFACT_WORK_DIR, else work-dir in "
                         "pytest's rootdir)")
    group.addoption(EMBEDDER, choices=BACKENDS, default="local", help="embedding backend (default: local)")
    group.addoption(MODEL, default=None, metavar="NAME",
                    help="embedding model (default: $SCIFACT_EMBED_MODEL or the backend's)")
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
    group.addoption(QUALITY_BAR, action="append", default=[], metavar="MODE=VALUE",
                    help="-m final: a quality bar for the system under test: the all-query nDCG@10 of MODE must be at "
                         "least VALUE (repeatable); without one, a system other than the built-in one has no bar and "
                         "the test skips")


# the options that take a value: written after a space, pytest reads that value as a test path when it chooses its
# rootdir (harness.suite.system_choice.check_rootdir)
VALUED = (ARCHIVE, WORK_DIR, EMBEDDER, MODEL, STORE_DIR, OUTPUT_DIR, SYSTEM, SYSTEM_PATH, MILVUS_URI, COMPARE_RUN,
          QUALITY_BAR)


def work_dir(config: pytest.Config) -> Path:
    given = config.getoption(WORK_DIR)
    return Path(given).resolve() if given else (config.rootpath / "work-dir").resolve()


def _per_system(config: pytest.Config, name: str) -> str:
    """The built-in system's default directory name, or one of the system's own (a store holds one system)."""
    spec = str(config.getoption(SYSTEM))
    return name if spec == "builtin" else f"{name}-{re.sub(r'[^A-Za-z0-9_.-]+', '-', spec)}"


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
