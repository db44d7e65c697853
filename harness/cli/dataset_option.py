"""`--dataset NAME`: which shipped contract a command works under. `build` builds that dataset's fixture (SciFact
by default); the other commands read the dataset from the fixture and, when `--dataset` is given, refuse a fixture
of another dataset."""

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from harness.cli.errors import Parser
from harness.corpus.contract import DEFAULT_DATASET, Contract, contract_named, contract_of, dataset_names
from harness.errors import HarnessError

if TYPE_CHECKING:  # the parser imports this module; --help loads no fixture code
    from harness.fixture.corpus_fixture import CorpusFixture

ARCHIVE_VARIABLE = "SCIFACT_ARCHIVE"  # a local SciFact archive; it never stands in for another dataset's


def add_dataset_option(parser: Parser, *, building: bool) -> None:
    names = dataset_names()
    parser.add_argument("--dataset", choices=names, default=DEFAULT_DATASET if building else None, metavar="NAME",
                        help=f"the dataset: {', '.join(names)} (default: {DEFAULT_DATASET})" if building else
                        f"the dataset the fixture must be ({', '.join(names)}; default: the fixture's own)")


def build_contract(args: argparse.Namespace) -> Contract:
    return contract_named(args.dataset)


def default_archive(args: argparse.Namespace) -> Path | None:
    """$SCIFACT_ARCHIVE (made absolute) when building SciFact; another dataset downloads, or takes --archive."""
    given = os.environ.get(ARCHIVE_VARIABLE) if args.dataset == DEFAULT_DATASET else None
    return Path(os.path.abspath(given)) if given else None


def fixture_contract(fixture: "CorpusFixture", dataset: str | None) -> Contract:
    """The shipped contract the fixture names; with `dataset`, the fixture must be that dataset's."""
    name = fixture.data["contract"]["name"]
    try:
        found, contract = contract_of(name)
    except HarnessError as exc:
        raise HarnessError(f"fixture {fixture.path}: {exc}") from None
    if dataset is not None and dataset != found:
        raise HarnessError(f"fixture {fixture.path} is a {found} fixture (contract {name!r}), not --dataset "
                           f"{dataset}; pass the {dataset} fixture (python -m harness build --dataset {dataset}), "
                           f"or --dataset {found}")
    return contract
