"""What a sweep writes into the output directory: `<dataset>-sweep-calibration.json` (schema `sweep`: the grid, every
configuration with its scores per mode and its events' places in the store's run ledger) and, beside it, each
configuration as a file `run --config` and `freeze --config` take (`<dataset>-sweep-configurations/`). They are
written atomically, together; an earlier sweep's are moved to `OUTPUT/superseded/<UTC time>/` first (its events stay
in the ledger, counted).
"""

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.atomic import write_all_atomic
from harness.corpus.split import selected_ids_sha256
from harness.evaluation.history.ledger import LEDGER, EventRef
from harness.evaluation.receipts.portable import command_in_words, name_of
from harness.fixture.corpus_fixture import CorpusFixture
from harness.hashing import sha256_canonical
from harness.schema_check import validate
from harness.systems.builtin.config.grid import MAX_CONFIGURATIONS, Grid
from harness.systems.builtin.config.overrides import nested
from harness.systems.builtin.config.search_config import SearchConfig

SCHEMA = "scifact-sweep-v1"
RANKED_BY = "ndcg_at_10"
MEASURED = ("each configuration's rankings from the built-in system's own search over the calibration queries, each "
            "query's metrics by the run's own code (query_metrics under the contract's conventions) and their means "
            "as a run's aggregate takes them; latency is not measured")
STORES = ("each distinct lexical configuration's index was built in a scratch directory under the system's temporary "
          "directory and removed when the sweep ended")


@dataclass(frozen=True)
class SweepFile:
    output_dir: Path
    dataset: str

    @property
    def path(self) -> Path:
        return self.output_dir / f"{self.dataset}-sweep-calibration.json"

    @property
    def configurations(self) -> Path:
        return self.output_dir / f"{self.dataset}-sweep-configurations"

    def config_path(self, index: int) -> Path:
        return self.configurations / f"configuration-{index:02d}.json"


@dataclass(frozen=True)
class Tried:
    index: int  # from 1, in the grid's stated order
    parameters: dict[str, int | float]  # the grid's parameters of it
    config: SearchConfig
    per_query: dict[str, list[dict[str, Any]]]  # mode -> each calibration query's ranking and metrics
    scores: dict[str, dict[str, float]]  # mode -> the default metrics' means


@dataclass(frozen=True)
class SweepResult:
    file: SweepFile
    tried: list[Tried]
    events: dict[tuple[int, str], EventRef]  # (index, mode) -> its event in the store's ledger
    modes: tuple[str, ...]
    query_count: int
    seconds: float
    superseded: Path | None = None

    def best(self, mode: str) -> Tried:
        """The configuration with the highest nDCG@10 in `mode` (ties: the first in the grid's order)."""
        return max(self.tried, key=lambda t: (t.scores[mode][RANKED_BY], -t.index))

    def ranked(self, mode: str) -> list[Tried]:
        return sorted(self.tried, key=lambda t: (-t.scores[mode][RANKED_BY], t.index))


def sweep_document(result: SweepResult, *, grid: Grid, fixture: CorpusFixture, store_dir: Path,
                   argv: tuple[str, ...], selected: list[str], recorded_at: str) -> dict[str, Any]:
    positions = [ref.position for ref in result.events.values()]
    configurations = [{
        "index": t.index, "parameters": t.parameters,
        "config_file": result.file.config_path(t.index).relative_to(result.file.output_dir).as_posix(),
        "configuration_sha256": t.config.sha256(),
        "modes": {mode: {"scores": t.scores[mode], "per_query_sha256": sha256_canonical(t.per_query[mode]),
                         "ledger": result.events[(t.index, mode)].to_dict()} for mode in result.modes},
    } for t in result.tried]
    return {
        "schema": SCHEMA, "dataset": result.file.dataset, "split": "calibration", "created_at": recorded_at,
        "sweep_sha256": grid.sha256(), "grid": {**grid.declared(), "max_configurations": MAX_CONFIGURATIONS},
        "fixture_sha256": fixture.sha256, "query_count": result.query_count,
        "selected_ids_sha256": selected_ids_sha256(selected), "modes": list(result.modes), "measured": MEASURED,
        "ledger": {"file": LEDGER, "store_directory_name": name_of(store_dir), "first_position": min(positions),
                   "last_position": max(positions)},
        "stores": STORES, "configurations": configurations,
        "best": {mode: {"index": result.best(mode).index, RANKED_BY: result.best(mode).scores[mode][RANKED_BY]}
                 for mode in result.modes},
        "command_line": command_in_words(argv),
    }


def _move_earlier(file: SweepFile) -> Path | None:
    earlier = [p for p in (file.path, file.configurations) if p.exists()]
    if not earlier:
        return None
    aside = file.output_dir / "superseded" / time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    aside.mkdir(parents=True, exist_ok=True)
    for path in earlier:
        path.rename(aside / path.name)
    return aside


def write_sweep(result: SweepResult, *, grid: Grid, fixture: CorpusFixture, store_dir: Path, argv: tuple[str, ...],
                selected: list[str], recorded_at: str) -> Path | None:
    """Write the sweep's file and its configuration files; return where an earlier sweep's were moved, if anywhere."""
    document = sweep_document(result, grid=grid, fixture=fixture, store_dir=store_dir, argv=argv, selected=selected,
                              recorded_at=recorded_at)
    validate(document, "sweep")
    superseded = _move_earlier(result.file)
    result.file.configurations.mkdir(parents=True, exist_ok=True)
    files = {result.file.config_path(t.index): json.dumps(nested(t.parameters), indent=1).encode() + b"\n"
             for t in result.tried}
    files[result.file.path] = json.dumps(document, indent=1, ensure_ascii=False).encode("utf-8") + b"\n"
    write_all_atomic(files)
    return superseded
