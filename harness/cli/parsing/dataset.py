"""`--dataset NAME` or `--contract FILE`: which contract a command works under, a shipped one by name or the user's
own (written by `python -m harness contract`). `build` builds that dataset's fixture (SciFact by default); the other
commands read the dataset from the fixture and, when one is named, refuse a fixture of another dataset."""

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from harness.cli.parsing.errors import Parser
from harness.cli.parsing.paths import path_argument
from harness.corpus.contract import (
    DEFAULT_DATASET,
    Contract,
    contract_named,
    contract_of,
    dataset_names,
    shipped_datasets,
)
from harness.errors import HarnessError
from harness.typed_commands import harness_command, shown

if TYPE_CHECKING:  # the parser imports this module; --help loads no fixture code
    from harness.fixture.corpus_fixture import CorpusFixture

ARCHIVE_VARIABLE = "SCIFACT_ARCHIVE"  # a local SciFact archive; it never stands in for another dataset's


def add_dataset_option(parser: Parser, *, building: bool) -> None:
    names = dataset_names()
    chosen = parser.add_mutually_exclusive_group()
    chosen.add_argument("--dataset", choices=names, default=None, metavar="NAME",
                        help=f"the dataset: {', '.join(names)} (default: {DEFAULT_DATASET})" if building else
                        f"the dataset the fixture must be ({', '.join(names)}; default: the fixture's own)")
    chosen.add_argument("--contract", type=path_argument, default=None, metavar="FILE",
                        help="the contract of a collection of your own (written by `python -m harness contract`)")


def own_contract(path: Path, option: str = "--contract", dataset_option: str = "--dataset") -> Contract:
    """The contract of a collection of one's own at `path`, as `option` names it (the suite's is
    --scifact-contract); a shipped dataset's name is refused, pointing at `dataset_option`."""
    if not path.is_file():
        write = harness_command("contract", "--dataset-dir", "DIR", "--name", "NAME", "--out", "FILE")
        raise HarnessError(f"{option} {path} is not a file; write one with `{write}`")
    try:
        contract = Contract.from_file(path)
    except ValueError as exc:
        raise HarnessError(f"{option} {path} is not a contract (JSON): {exc}") from None
    shipped = shipped_datasets()
    if contract.name in shipped or contract.name in shipped.values():  # a shipped dataset is only ever its shipped
        # contract, pins and all; its --dataset name is what its artifacts carry
        dataset = shipped.get(contract.name, contract.name)
        raise HarnessError(f"{option} {path} names the shipped dataset {contract.name!r}; use {dataset_option} "
                           f"{dataset}, or give your collection a name of its own")
    return contract


def build_contract(args: argparse.Namespace) -> Contract:
    return own_contract(args.contract) if args.contract is not None else contract_named(
        args.dataset or DEFAULT_DATASET)


def default_archive(args: argparse.Namespace) -> Path | None:
    """$SCIFACT_ARCHIVE (made absolute) when building SciFact; another dataset downloads, or takes --archive."""
    given = os.environ.get(ARCHIVE_VARIABLE) if args.contract is None and args.dataset in (None, DEFAULT_DATASET) \
        else None
    return Path(os.path.abspath(given)) if given else None


def given_archive(args: argparse.Namespace, contract: Contract) -> Path | None:
    """The dataset's archive a command was given: --archive, else the one `contract` packed beside a --contract file
    (NAME.zip), else none."""
    if args.archive is not None:
        return Path(args.archive)
    own: Path | None = getattr(args, "contract", None)
    beside = own.parent / f"{contract.namespace}.zip" if own is not None else None
    return beside if beside is not None and beside.is_file() else None


def fixture_contract(fixture: "CorpusFixture", dataset: str | None, own: Path | None = None) -> Contract:
    """The shipped contract the fixture names, or the user's own (`own`, --contract); with `dataset`, the fixture
    must be that dataset's."""
    name = fixture.data["contract"]["name"]
    if own is not None:
        contract = own_contract(own)
        if contract.name != name:
            raise HarnessError(f"fixture {fixture.path} was built under contract {name!r}, not {own}'s "
                               f"{contract.name!r}; pass the contract the fixture was built under")
        return contract
    try:
        found, contract = contract_of(name)
    except HarnessError as exc:
        raise HarnessError(f"fixture {fixture.path}: {exc}; for a collection of your own, pass --contract FILE, the "
                           "contract it was built under") from None
    if dataset is not None and dataset != found:
        raise HarnessError(f"fixture {fixture.path} is a {found} fixture (contract {name!r}), not --dataset "
                           f"{dataset}; pass the {dataset} fixture (python -m harness build --dataset {dataset}), "
                           f"or --dataset {found}")
    return contract


def dataset_options(args: argparse.Namespace, contract: Contract) -> tuple[str, ...]:
    """The options that name the dataset of `contract` when it is not SciFact, as the next command repeats them."""
    if args.contract is not None:
        return ("--contract", shown(args.contract))
    # a contract of the tests' own is run as SciFact's would be
    dataset = shipped_datasets().get(contract.name, DEFAULT_DATASET)
    return ("--dataset", dataset) if dataset != DEFAULT_DATASET else ()
