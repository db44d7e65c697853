"""The validator's own pins: one JSON file per dataset it knows, shipped beside this module.

Nothing here is read from a fixture, a receipt or `harness/contracts/`: a fixture is matched to the pins of
the dataset its contract names, and must then equal them.
"""

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PINS_DIR = Path(__file__).resolve().parent / "pins"


@dataclass(frozen=True)
class Pins:
    dataset: str
    title: str  # what a claim on this dataset may call it
    scope: str  # what a result on it is evidence of, in words
    members: dict[str, str]  # role (corpus, queries, qrels) -> member name in the archive
    member_files: dict[str, dict[str, Any]]  # member name -> {"bytes": size, "sha256": digest}
    original_container: dict[str, Any] | None  # the publisher's zip (bytes, md5), when it is known
    contract: dict[str, Any]  # the contract's terms, as a fixture records them
    profile: dict[str, Any]  # the contract's text profile
    measures: dict[str, str]  # the metric conventions the dataset is measured by (ndcg_gain, map_denominator)
    content_sha256: dict[str, str]
    qrels: dict[str, dict[str, int]]  # the test judgements, in full
    ir_datasets_id: str | None = None  # the dataset's id in ir_datasets (None: ir_datasets does not hold it)
    artifact_name: str = ""  # what a run's file names carry (scifact of scifact-hybrid-heldout.aggregate.json)

    @property
    def archive_only(self) -> bool:
        """Pinned by the publisher's archive alone (size and md5): no member or content digest to hold a fixture
        to, so the fixture is this dataset only when re-derived from that archive."""
        return not self.member_files

    @property
    def archive_name(self) -> str | None:
        """The publisher's file name of the archive (scifact.zip), when the pins know where it is published."""
        url = str((self.original_container or {}).get("url") or "")
        return url.rsplit("/", 1)[-1] or None

    @property
    def is_scifact(self) -> bool:
        return self.dataset == "beir-scifact"


@functools.cache
def all_pins() -> dict[str, Pins]:
    pins = {}
    for path in sorted(PINS_DIR.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        pins[data["dataset"]] = Pins(**data)
    return pins


def pins_for(dataset: object) -> Pins | None:
    return all_pins().get(dataset) if isinstance(dataset, str) else None


def pinned_names() -> dict[str, str]:
    """Every name under which a dataset the validator pins goes (its key, the name its run's files carry, its contract's
    namespace, its archive's stem) -> that dataset's title."""
    names = {}
    for pins in all_pins().values():
        for name in (pins.dataset, pins.artifact_name, pins.contract.get("namespace"),
                     (pins.archive_name or "").removesuffix(".zip")):
            if name:
                names[str(name)] = pins.title
    return names


def artifact_name(dataset: object) -> str:
    """What the file names of a run on `dataset` (a contract's name) carry: the name the validator's pins give it,
    or, for a collection it holds no pins of, the contract's own name."""
    pins = pins_for(dataset)
    return pins.artifact_name if pins is not None else str(dataset)
