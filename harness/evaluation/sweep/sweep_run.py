"""`sweep --grid GRID`: every configuration of the grid evaluated on the calibration split (no other split is
offered), in every requested mode, with the system's own search and the run's own metrics
(`measures.metrics.query_metrics`, the aggregate's `mean_metrics`), then recorded in the store's run ledger
(history/sweep_ledger.py) and in `OUTPUT/<dataset>-sweep-calibration.json` (sweep_artifact.py).

Configurations that share their lexical parameters share one index: each distinct lexical configuration gets a store
of its own in a scratch directory under the system's temporary directory, removed when the sweep ends (nothing is
kept: the sweep's rankings are digested into its events, and the configuration chosen is built in the store
directory by its calibration `run --config`). The store directory itself holds only the run ledger and the record of
its system until then; a store already built there must have the lexical parameters of every configuration, since a
store is never rebuilt in place.
"""

import json
import tempfile
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from harness.corpus.contract import Contract, artifact_dataset
from harness.corpus.split import select, selected_ids_sha256
from harness.errors import HarnessError
from harness.evaluation.history.sweep_ledger import check_sweep_turn, record_sweep
from harness.evaluation.measures.metrics import Conventions, mean_metrics, query_metrics
from harness.evaluation.measures.query_vectors import QueryVectors
from harness.evaluation.measures.threads import one_blas_thread
from harness.evaluation.receipts.artifacts import refuse_another_dataset
from harness.evaluation.run_split import check_fixture_contract
from harness.evaluation.sweep.sweep_artifact import SweepFile, SweepResult, Tried, write_sweep
from harness.fixture.corpus_fixture import CorpusFixture
from harness.hashing import sha256_canonical
from harness.modes import SEARCHED
from harness.modes import mode as declared_mode
from harness.systems.builtin.config.grid import Grid, lexical_key
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.store.manifest import MANIFEST
from harness.systems.names import BUILTIN
from harness.systems.protocol import SystemUnderTest
from harness.systems.registry.select import make_builder
from harness.systems.registry.store_owner import claim

SPLIT = "calibration"


class SweepError(HarnessError):
    """A sweep asked for something it cannot do: a store built with other lexical parameters, a mode not offered."""


def _store_lexical(store_dir: Path) -> dict[str, Any] | None:
    """The lexical parameters a store already built in `store_dir` was built with (None: no store there yet)."""
    manifest = store_dir / MANIFEST
    if not manifest.is_file():
        return None
    try:
        lexical: dict[str, Any] = json.loads(manifest.read_bytes())["binding"]["lexical"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SweepError(f"the store manifest {manifest} cannot be read ({exc}); sweep into a store directory with "
                         "no store yet") from None
    return lexical


def _check_store(store_dir: Path, configs: list[SearchConfig]) -> None:
    built = _store_lexical(store_dir)
    if built is None:
        return
    other = next((c for c in configs if asdict(c.lexical) != built), None)
    if other is not None:
        raise SweepError(
            f"the store directory {store_dir} already holds a store built with lexical k1={built.get('k1')}, "
            f"b={built.get('b')}, and the grid has configurations with k1={other.lexical.k1}, b={other.lexical.b}: a "
            "store is never rebuilt in place, so such a configuration could not be run and frozen there. Sweep into "
            "a store directory with no store yet (its run ledger then records the sweep, and the calibration run of "
            "the configuration you choose builds its store there), or sweep only rrf_k and hybrid_candidate_depth "
            "here")


def _evaluate(system: SystemUnderTest, mode: str, fixture: CorpusFixture, selected: list[str], top_k: int,
              conventions: Conventions) -> list[dict[str, Any]]:
    """Each calibration query's ranking and metrics, as a run's rows compute them (no timing: a sweep's latency is
    not measured)."""
    queries = {query["query_id"]: query for query in fixture.data["queries"]}
    vectors = QueryVectors(fixture) if declared_mode(mode).dense else None
    answered = []
    for query_id in selected:
        text, qrels = queries[query_id]["text"], queries[query_id]["qrels"]
        outcome = system.search(mode, text, vectors(text) if vectors is not None else None, top_k)
        ranked = [hit.doc_id for hit in outcome.hits]
        answered.append({"query_id": query_id, "ranked_doc_ids": ranked,
                         "metrics": query_metrics(ranked, qrels, conventions)})
    return answered


def run_sweep(grid: Grid, *, fixture: CorpusFixture, contract: Contract, store_dir: Path, output_dir: Path,
              modes: tuple[str, ...] | None, argv: tuple[str, ...]) -> SweepResult:
    """The one entry point of the command line and the pytest suite."""
    started = time.monotonic()
    check_fixture_contract(fixture, contract)
    unknown = [m for m in modes or () if m not in SEARCHED]
    if unknown:
        raise SweepError(f"the built-in system does not offer {', '.join(unknown)}; it offers {', '.join(SEARCHED)}")
    chosen = modes or SEARCHED
    parameters = grid.configurations()
    configs = [grid.search_config(p) for p in parameters]
    dataset = artifact_dataset(contract.name)
    refuse_another_dataset(output_dir, dataset)
    claim(store_dir, BUILTIN, "--store-dir")
    check_sweep_turn(store_dir)
    _check_store(store_dir, configs)
    selected = select([q["query_id"] for q in fixture.data["queries"]], SPLIT, contract.calibration_count)
    conventions = Conventions.declared(contract.measures)
    tried: list[Tried] = []
    with tempfile.TemporaryDirectory(prefix="scifact-sweep-") as scratch, one_blas_thread():
        stores: dict[tuple[tuple[str, int | float], ...], Path] = {}
        for index, (given, config) in enumerate(zip(parameters, configs, strict=True), start=1):
            key = lexical_key(given)
            builder = make_builder(contract.namespace, config, BUILTIN)
            if key in stores:
                system = builder.open(fixture, stores[key])
            else:
                stores[key] = Path(scratch) / f"lexical-{len(stores) + 1}"
                system = builder.build(fixture, stores[key])[0]
            per_query = {mode: _evaluate(system, mode, fixture, selected, config.top_k, conventions)
                         for mode in chosen}
            scores = {mode: mean_metrics([row["metrics"] for row in rows]) for mode, rows in per_query.items()}
            tried.append(Tried(index, given, config, per_query, scores))
    recorded_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    events = [{"sweep_sha256": grid.sha256(), "configuration": t.parameters, "configuration_sha256": t.config.sha256(),
               "mode": mode, "split": SPLIT, "selected_ids_sha256": selected_ids_sha256(selected),
               "per_query_sha256": sha256_canonical(t.per_query[mode]), "scores": t.scores[mode],
               "recorded_at": recorded_at} for t in tried for mode in chosen]
    refs = record_sweep(store_dir, events)
    placed = {(t.index, mode): ref for (t, mode), ref in zip(
        [(t, mode) for t in tried for mode in chosen], refs, strict=True)}
    result = SweepResult(SweepFile(output_dir, dataset), tried, placed, chosen, len(selected),
                         time.monotonic() - started)
    superseded = write_sweep(result, grid=grid, fixture=fixture, store_dir=store_dir, argv=argv, selected=selected,
                             recorded_at=recorded_at)
    return replace(result, superseded=superseded)
