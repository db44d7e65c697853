"""Every row of a run asked again of the live system that made it, for the validator's `replay.through_system`.

A lane the validator cannot recompute on its own (a system's own lexical engine) is checked by asking the system
the same queries again, outside the run: the answers are printed as JSON (`python -m harness replay`), and the
validator compares them with the rows using its own code. This shows the rows are what the live system answers;
it is not an independent recomputation, and the validator says so. A system of its own answers in its worker
process, which is handed the query texts (and the fixture's query vectors for a mode with a dense lane), never the
judgements or an artifact's path.
"""

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.evaluation.gates.frozen_difference import first_difference
from harness.evaluation.measures.metrics import DEPTH
from harness.evaluation.measures.query_vectors import QueryVectors
from harness.evaluation.receipts.locations import FIXTURES, LOCATIONS_NAME, SOURCES, STORES, hinted
from harness.fixture.corpus_fixture import CorpusFixture, load_fixture
from harness.modes import mode as declared_mode
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.plugin.location import locate
from harness.systems.protocol import Hit, SearchFailed, SearchStopped, SystemUnderTest
from harness.systems.registry.select import make_builder

# what must equal the receipt's, besides the source's digest
COMPARED = ("configuration_sha256", "version", "options", "modules", "distributions", "distribution_files",
            "environment")


class ReplayInputError(HarnessError):
    """The aggregate to replay is not readable or names no system that can be opened."""


class ReplayAnswerError(HarnessError):
    """The live system failed a query now that it answered in the run: the system's to fix, named."""


def _read(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ReplayInputError(f"aggregate {path} is not readable JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise ReplayInputError(f"aggregate {path} is not a JSON object")
    return value


@dataclass(frozen=True)
class _Prepared:
    """One aggregate to replay: what opens its system (`key` is the same for aggregates that share it) and what to
    ask."""

    key: tuple[Any, ...]
    fixture: CorpusFixture
    directory: Path
    module_directory: Path | None
    spec: str
    namespace: str
    options: dict[str, str]
    system: dict[str, Any]
    mode: str
    top_k: int
    rows_path: Path


def _prepare(aggregate_path: Path, store_dir: Path | None, system_path: Path | None, fixture_path: Path | None,
             fixtures: dict[Path, CorpusFixture]) -> _Prepared:
    aggregate = _read(aggregate_path)
    try:
        receipt, mode = aggregate["receipt"], aggregate["mode"]
        spec, namespace = receipt["system"]["spec"], receipt["store"]["namespace"]
        options = {str(k): str(v) for k, v in receipt["system"]["options"].items()}
        top_k = int(receipt["retrieval"]["top_k"])
        rows_path = aggregate_path.parent / aggregate["per_query_path"]
        fixture_sha256, store_sha256 = receipt["corpus"]["fixture_sha256"], receipt["store"]["store_sha256"]
        source_sha256 = receipt["system"]["source"]["sha256"]
    except (KeyError, TypeError, ValueError) as exc:
        raise ReplayInputError(f"aggregate {aggregate_path} lacks what a replay needs: {exc!r}") from exc
    here = aggregate_path.parent
    place = _found(fixture_path or hinted(here, FIXTURES, fixture_sha256), "fixture", "--fixture FILE", aggregate_path)
    if place not in fixtures:  # one SciFact fixture read once for all the aggregates that name it
        fixtures[place] = load_fixture(place)
    fixture = fixtures[place]
    if fixture.sha256 != fixture_sha256:
        raise ReplayInputError(f"fixture {fixture.path} has sha256 {fixture.sha256}, not the {fixture_sha256} the "
                               f"receipt {aggregate_path} binds: pass the run's fixture with --fixture FILE")
    directory = _found(store_dir or hinted(here, STORES, store_sha256), "store", "--store-dir DIR", aggregate_path)
    source_root = system_path or hinted(here, SOURCES, source_sha256)
    # the module is looked for where the run found it (or where --system-path says it moved); the source digest
    # compared below says whether it is the same code
    module_directory = locate(spec, [source_root] if source_root is not None else [], "the receipt's system.spec",
                              "--system-path DIR")
    key = (spec, namespace, tuple(sorted(options.items())), str(directory), fixture.sha256, str(module_directory))
    return _Prepared(key, fixture, directory, module_directory, spec, namespace, options, receipt["system"], mode,
                     top_k, rows_path)


def replay_all(aggregate_paths: Sequence[Path], store_dir: Path | None = None, system_path: Path | None = None,
               fixture_path: Path | None = None) -> dict[str, dict[str, dict[str, Any]]]:
    """Each aggregate's answers as `replay` gives them, keyed by its path as given. Aggregates that share a system
    (spec, options, store, fixture and module) are answered by one opened system: a bundle's modes and splits start
    one worker, not one each."""
    fixtures: dict[Path, CorpusFixture] = {}
    prepared = {str(path): _prepare(path, store_dir, system_path, fixture_path, fixtures) for path in aggregate_paths}
    groups: dict[tuple[Any, ...], list[str]] = {}
    for name, item in prepared.items():
        groups.setdefault(item.key, []).append(name)
    answered: dict[str, dict[str, dict[str, Any]]] = {}
    for names in groups.values():
        first = prepared[names[0]]
        builder = make_builder(first.namespace, SearchConfig(), first.spec, first.options,
                               directory=first.module_directory)
        try:
            system = builder.open(first.fixture, first.directory)
            for name in names:
                item = prepared[name]
                _same_system(system.identity().record(), item.system)
                answered[name] = _answers(system, item.fixture, item.mode, item.top_k, item.rows_path)
        finally:
            builder.close()
    return {str(path): answered[str(path)] for path in aggregate_paths}


def replay(aggregate_path: Path, store_dir: Path | None = None, system_path: Path | None = None,
           fixture_path: Path | None = None) -> dict[str, dict[str, Any]]:
    """`top_k`: query id -> the system's hits now (doc id, score and lane evidence, best first); `depth`: query id
    -> its depth-100 ranking now ({doc_ids, scores}), for each row that carries one answered. The fixture, store and
    source are the ones given (a bundle's copies: `fixture_path`, `store_dir`, `system_path`), else where the output
    directory's locations.json says (`receipts/locations.py`); the fixture must be the one the run read, by sha256."""
    return replay_all([aggregate_path], store_dir, system_path, fixture_path)[str(aggregate_path)]


def _found(path: Path | None, what: str, option: str, aggregate_path: Path) -> Path:
    if path is None:
        raise ReplayInputError(f"the {what} of {aggregate_path} is not known here: its receipt names it by digest, and "
                               f"{aggregate_path.parent / LOCATIONS_NAME} does not place it; pass {option}")
    return path


def _same_system(now: dict[str, Any], recorded: dict[str, Any]) -> None:
    differing = [key for key in COMPARED if now[key] != recorded.get(key)]
    if now["source"]["sha256"] != (recorded.get("source") or {}).get("sha256"):
        differing.append("source")
    if differing:
        first = first_difference({key: recorded.get(key) for key in COMPARED}, {key: now[key] for key in COMPARED},
                                 set())
        raise ReplayInputError(f"the system opened now is not the one the receipt names: its {', '.join(differing)} "
                               f"differ{f' (first: {first})' if first else ''}; replay it with the system (version, "
                               "source, configuration, loaded modules and distributions, declared environment) that "
                               "made the run")


def _ask(system: SystemUnderTest, mode: str, text: str, vectors: QueryVectors | None, top_k: int, query_id: str
         ) -> list[Hit]:
    """The system's hits now; the system is handed the query's text (and vector), nothing of its judgements."""
    name = system.identity().name
    try:
        return system.search(mode, text, vectors(text) if vectors is not None else None, top_k).hits
    except SearchStopped as exc:
        raise exc.at(name, query_id, "the replay") from exc
    except SearchFailed as exc:
        raise ReplayAnswerError(f"system {name!r} failed query {query_id} (top_k {top_k}) when asked again, which it "
                                f"answered in the run: {exc.error}") from exc


def _answers(system: SystemUnderTest, fixture: CorpusFixture, mode: str, top_k: int, rows_path: Path
             ) -> dict[str, dict[str, Any]]:
    texts = {q["query_id"]: q["text"] for q in fixture.data["queries"]}
    vectors = QueryVectors(fixture) if declared_mode(mode).dense else None
    answers: dict[str, Any] = {}
    depth: dict[str, Any] = {}
    for line in rows_path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        query_id = row["query_id"]
        if query_id not in texts or row.get("error") is not None:  # a failed row has no ranking to compare
            continue
        hits = _ask(system, mode, texts[query_id], vectors, top_k, query_id)
        answers[query_id] = [{"doc_id": hit.doc_id, "score": hit.score, "lanes": hit.lanes} for hit in hits]
        if (row.get("depth_ranking") or {}).get("error", "absent") is None:
            deep = _ask(system, mode, texts[query_id], vectors, DEPTH, query_id)
            depth[query_id] = {"doc_ids": [hit.doc_id for hit in deep], "scores": [hit.score for hit in deep]}
    return {"top_k": answers, "depth": depth}
