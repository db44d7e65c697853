"""Which dataset a report speaks of, in words, read from the receipt's contract: a shipped dataset by the title its
contract file gives (SciFact, NFCorpus, ...), a collection of one's own by its name. Published reference figures exist
for SciFact only. The contract files are the package's data (`harness/contracts/`), read here as data."""

import functools
import json
from importlib import resources
from typing import Any

SCIFACT = "beir-scifact"


@functools.cache
def _shipped_titles() -> dict[str, str]:
    """Contract name -> title, of every contract file the package ships."""
    folder = resources.files("harness").joinpath("contracts")
    contracts = [json.loads(entry.read_text(encoding="utf-8")) for entry in folder.iterdir()
                 if entry.name.endswith(".json")]
    return {contract["name"]: contract.get("title") or contract["name"] for contract in contracts}


def _name(receipt: dict[str, Any]) -> str:
    return str(receipt["corpus"]["contract"]["name"])


def short_title(receipt: dict[str, Any]) -> str:
    """SciFact, NFCorpus, ...; else the collection's own name."""
    return _shipped_titles().get(_name(receipt), _name(receipt))


def long_title(receipt: dict[str, Any]) -> str:
    """BEIR SciFact, BEIR NFCorpus, ...; else "the collection NAME"."""
    return f"BEIR {short_title(receipt)}" if _name(receipt) in _shipped_titles() else f"the collection {_name(receipt)}"


def has_references(receipt: dict[str, Any]) -> bool:
    """Whether the published reference figures (SciFact's) speak of this run's dataset."""
    return _name(receipt) == SCIFACT
