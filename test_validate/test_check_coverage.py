"""Every check the validator can report is proven able to fail, alone: for each name in its catalog, an artifact
that violates that check, and the assertion that the validator fails it while every other check reports what it
reports on the clean run (isolation.py). A check with no case fails this suite.

Adding a check: add its violation to VIOLATIONS under the check's name. Make the violation as narrow as a careful
forger would (forger.py reseals rows, aggregates, configuration and store digests), so that nothing else objects.
Where the violation necessarily trips another check too, say so beside it, with the reason:
`.also("other.check", why="...")`; where the validator does not run checks after it, `.unreached(...)` or
`.stops()`. The test tells you which checks moved and whether a declaration is missing or no longer needed.
"""

import json
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from fixtures.archives import tiny_archive, tiny_members
from harness.validator.core.catalog import CHECKS
from harness.validator.core.installed import Installed
from harness.validator.core.report import Report
from harness.validator.dataset.named import check_named
from harness.validator.pipeline import validate
from harness.validator.receipt import check_source

from . import forger, primary_forger
from . import test_mutations as mutations
from .isolation import Expected, assert_isolated
from .support import CleanRun, Json, Row, RunCopy, failed_names, flip_byte, sha256_bytes, sha256_canonical, sha256_file
from .test_bundle_texts import TEXTS_VIOLATIONS
from .test_chosen_measures import CHOSEN_VIOLATIONS
from .test_comparison_coverage import COMPARISON_VIOLATIONS
from .test_embeddings import rewrite_vector
from .test_run_file_checks import RUN_FILE_VIOLATIONS
from .test_systems_coverage import SYSTEMS_VIOLATIONS

OTHER_DIGEST = sha256_bytes(b"something else")


@dataclass(frozen=True)
class Violation:
    apply: Callable[[RunCopy], Path]
    full_embedding: bool = False
    archive: Callable[[Path], Path] | None = None  # the archive given to the validator to re-derive from
    installed_here: Installed | None = None  # the harness beside the validator as an installed distribution
    dataset: str | None = None  # the reader's --dataset NAME, checked as the command line checks it
    expected: Expected = field(default_factory=Expected)

    def also(self, *names: str, why: str = "") -> "Violation":
        return replace(self, expected=replace(self.expected, also=frozenset(names), why=why))

    def unreached(self, *names: str) -> "Violation":
        return replace(self, expected=replace(self.expected, unreached=frozenset(names)))

    def stops(self) -> "Violation":
        return replace(self, expected=replace(self.expected, stops=True))


def _from_mutation(function: Callable[[RunCopy], mutations.Edit]) -> Violation:
    return Violation(lambda copy: function(copy).aggregate)


def _receipt(mode: str, split: str, change: Callable[[Json], object]) -> Violation:
    return Violation(lambda copy: copy.edit_receipt(mode, split, change))


def _source(change: Callable[[Json], object]) -> Violation:
    """fts_only calibration's source block edited, and the run ledger rebound to it (forger.rebind_source)."""
    def apply(copy: RunCopy) -> Path:
        copy.edit_receipt("fts_only", "calibration", lambda r: change(r["source"]))
        return forger.rebind_source(copy, "fts_only", "calibration")
    return Violation(apply)


def _aggregate_metrics(change: Callable[[Json], object]) -> Violation:
    return Violation(lambda copy: copy.edit_aggregate("fts_only", "calibration", lambda a: change(a["metrics"])))


def _rows(mode: str, split: str, change: Callable[[list[Row]], object]) -> Violation:
    """Rows changed; the rows digest, count and the aggregate's metric means re-derived from them."""
    def apply(copy: RunCopy) -> Path:
        rows = copy.rows(mode, split)
        change(rows)
        forger.write_forged(copy, mode, split, rows)
        return copy.aggregate_path(mode, split)
    return Violation(apply)


def _missing(copy: RunCopy) -> Path:
    return copy.out / "no-such.aggregate.json"


def _row_split(rows: list[Row]) -> None:
    rows[0]["split"] = "heldout"


def _repeated_rank(rows: list[Row]) -> None:
    rows[0]["results"][1]["rank"] = 1  # the rank field alone: lanes, scores and digests are as they were


def _metric_restated(rows: list[Row]) -> None:
    metrics = rows[0]["metrics"]
    metrics["recall_at_1"] = 0.5 if metrics["recall_at_1"] != 0.5 else 0.25


def _request_id(rows: list[Row]) -> None:
    rows[0]["request_id"] = rows[0]["search_receipt"]["request_id"] = "another/run-9/" + rows[0]["query_id"]
    forger.reseal_row(rows[0])


def _out_of_order(rows: list[Row]) -> None:
    row = next(r for r in rows if len(r["results"]) > 1 and r["results"][0]["score"] > r["results"][1]["score"])
    row["results"][0], row["results"][1] = row["results"][1], row["results"][0]
    forger.reseal_row(row)


def _qrels(rows: list[Row]) -> None:
    """A qrel added to a row, its metrics recomputed: only the fixture's qrels can object."""
    qrels = rows[0]["qrels"]
    qrels[next(f"d{i:02d}" for i in range(1, 11) if f"d{i:02d}" not in qrels)] = 1
    forger.reseal_row(rows[0])


def _query_vector(rows: list[Row]) -> None:
    rows[0]["search_receipt"]["lanes"]["dense"]["query_vector_sha256"] = OTHER_DIGEST
    forger.reseal_row(rows[0])


def _drop_last_hybrid_result(rows: list[Row]) -> None:
    rows[0]["results"].pop()
    forger.reseal_row(rows[0])


def _depth_reranked(rows: list[Row]) -> None:
    """Two documents of a depth-100 ranking trade places while the scores stay where they were (still descending);
    its metrics and the aggregate's account re-derived."""
    row = next(r for r in rows if len(set(r["depth_ranking"]["scores"][1:3])) == 2)
    ids = row["depth_ranking"]["doc_ids"]
    ids[1], ids[2] = ids[2], ids[1]
    forger.reseal_row(row)


def _depth_search_said_failed(rows: list[Row]) -> None:
    """A depth search said to have failed while its ranking is kept."""
    rows[0]["depth_ranking"]["error"] = "depth-100 ranking: system 'builtin': said to have failed"


def _depth_metric_restated(rows: list[Row]) -> None:
    metrics = rows[0]["metrics"]
    metrics["ndcg_at_100"] = 0.5 if metrics["ndcg_at_100"] != 0.5 else 0.25


def _fixture_edit(change: Callable[[Json], object], *, receipt: Callable[[Json, Json], object] | None = None
                  ) -> Violation:
    """A private copy of the fixture, changed; the receipt's fixture digest follows it."""
    def apply(copy: RunCopy) -> Path:
        path, _ = copy.copy_fixture()
        fixture = json.loads(path.read_text(encoding="utf-8"))
        change(fixture)
        path.write_text(json.dumps(fixture, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")

        def reseal(r: Json) -> None:
            r["corpus"]["fixture_sha256"] = sha256_file(path)
            if receipt is not None:
                receipt(r, fixture)
        return copy.edit_receipt("fts_only", "calibration", reseal)
    return Violation(apply)


def _judged_by_the_dense_lane(copy: RunCopy) -> Path:
    """Forged judgements: each calibration query judged by the dense lane's own top results, every digest
    re-derived."""
    primary_forger.forge_judgements(copy, "calibration")
    return copy.aggregate_path("fts_only", "calibration")


def _fixture_rewrite(change: Callable[[Json], object]) -> Violation:
    def apply(copy: RunCopy) -> Path:
        primary_forger.rewrite_fixture(copy, lambda fixture, _: change(fixture))
        return copy.aggregate_path("fts_only", "calibration")
    return Violation(apply)


def _edited_semantic_text(fixture: Json) -> None:
    fixture["documents"][0]["semantic_text"] += " (edited)"


def _archive_with_other_queries(directory: Path) -> Path:
    members = tiny_members()
    members["tiny/queries.jsonl"] += b'{"_id": "q99", "text": "an added query"}\n'
    return tiny_archive(directory / "other.zip", {"tiny/queries.jsonl": members["tiny/queries.jsonl"]})


def _parity_profile(fixture: Json) -> None:
    """A fixture that says it was made under the parity profile (its texts are as they were: no check here reads
    them against the profile)."""
    fixture["profile"].update(name="mteb-parity", is_contract=False, max_code_points=None, document_prefix="",
                              query_prefix="")


def _profile_from_fixture(receipt: Json, fixture: Json) -> None:
    receipt["profile"] = receipt["embedding"]["profile"] = fixture["profile"]


def _heldout_query_row(copy: RunCopy) -> int:
    """The sidecar row of a held-out query's vector (documents first, then queries): no calibration row reads it."""
    fixture = json.loads(copy.clean.fixture_path.read_text(encoding="utf-8"))
    query = copy.rows("vector_only", "heldout")[0]["query_id"]
    position = [q["query_id"] for q in fixture["queries"]].index(query)
    return len(fixture["documents"]) + position


def _heldout_query_vector_flipped(copy: RunCopy) -> Path:
    _, sidecar = copy.copy_fixture()
    dims = copy.aggregate("vector_only", "calibration")["receipt"]["embedding"]["dimensions"]
    flip_byte(sidecar, 4 * dims * _heldout_query_row(copy))
    return copy.aggregate_path("vector_only", "calibration")


def _heldout_query_vector_nudged(copy: RunCopy) -> Path:
    """A held-out query's vector nudged, the sidecar and fixture digests resealed: the calibration run never used it,
    the store holds no query vectors, so only re-embedding the query's text can object."""
    target = _heldout_query_row(copy)

    def nudge(vectors: NDArray[np.float32]) -> NDArray[np.floating]:
        moved: NDArray[np.float64] = vectors[target].astype(np.float64) + 1e-4 * vectors[0]
        return moved / float(np.linalg.norm(moved))
    return rewrite_vector(copy, target, nudge)


def _store_file(change: Callable[[Path], object], mode: str = "fts_only") -> Violation:
    """A private copy of the store, changed, with every digest the receipt and rows state resealed."""
    def apply(copy: RunCopy) -> Path:
        store = copy.copy_store()
        change(store)
        return forger.reseal_store(copy, store, mode, "calibration")
    return Violation(apply)


def _manifest_field(store: Path) -> None:
    manifest = json.loads((store / "store.json").read_text(encoding="utf-8"))
    manifest["unexpected"] = True
    (store / "store.json").write_text(json.dumps(manifest), encoding="utf-8")


def _mapping_without_schema(store: Path) -> None:
    mapping = json.loads((store / "mapping.json").read_text(encoding="utf-8"))
    del mapping["schema"]
    (store / "mapping.json").write_text(json.dumps(mapping), encoding="utf-8")


def _fact_text(store: Path) -> None:
    connection = sqlite3.connect(store / "facts.sqlite3")
    with connection:
        connection.execute("UPDATE facts SET body = body || ' edited' WHERE fact_id = 1")
    connection.close()


def _dense_rows_swapped(store: Path) -> None:
    """The first two stored vectors swapped in dense.f32 (the database's copies stay as they were)."""
    data = bytearray((store / "dense.f32").read_bytes())
    width = len(data) // len(json.loads((store / "mapping.json").read_text(encoding="utf-8"))["doc_to_fact"])
    data[:width], data[width:2 * width] = data[width:2 * width], data[:width]
    (store / "dense.f32").write_bytes(bytes(data))


def _store_digest_claimed(copy: RunCopy) -> Path:
    """The receipt and every search receipt claim another store digest; each part's digest stays true."""
    forger.reseal_search_receipts(copy, "fts_only", "calibration", store_sha256=OTHER_DIGEST)
    return copy.edit_receipt("fts_only", "calibration", lambda r: r["store"].update(
        store_sha256=OTHER_DIGEST, before_run_sha256=OTHER_DIGEST, after_run_sha256=OTHER_DIGEST))


def _mapping_elsewhere(copy: RunCopy) -> Path:
    """The receipt names a byte-for-byte copy of the store's mapping, beside it under another name."""
    store = copy.copy_store()
    named = copy.aggregate("fts_only", "calibration")["receipt"]["store"]["mapping_file"]
    shutil.copy2(store / named, store / "mapping-copy.json")
    return copy.edit_receipt("fts_only", "calibration", lambda r: r["store"].update(mapping_file="mapping-copy.json"))


def _source_file_digest(receipt: Json) -> None:
    files = receipt["system"]["source"]["files"]
    files[min(files)] = OTHER_DIGEST


def _installed_run(source: Json) -> None:
    source["git"] = {"available": False, "reason": "installed distribution scifact-harness 0.1.0"}
    source["distribution"] = {"available": True, "name": "scifact-harness", "version": "0.1.0", "files": 500,
                                         "files_sha256": sha256_bytes(b"the files installed"), "rule": "RECORD",
                                         "changed": []}


def _stray_module(receipt: Json) -> None:
    """A module the system's process loaded, recorded with a digest its file does not have."""
    receipt["system"]["modules"]["stray"] = {"path": str(Path(__file__).resolve()), "sha256": OTHER_DIGEST}


def _forged(mode: str) -> Violation:
    def apply(copy: RunCopy) -> Path:
        forger.forge_single_lane(copy, mode, "calibration", every_row=False)
        return copy.aggregate_path(mode, "calibration")
    return Violation(apply)


def _freeze_record(change: Callable[[Json], object], *, reseal: bool) -> Violation:
    """The copy's freeze record changed (its digest resealed or not); fts_only's held-out receipt is validated."""
    def apply(copy: RunCopy) -> Path:
        record = json.loads(copy.freeze_path.read_text(encoding="utf-8"))
        change(record)
        if reseal:
            record["freeze_sha256"] = sha256_canonical({k: v for k, v in record.items() if k != "freeze_sha256"})
        copy.freeze_path.write_text(json.dumps(record, indent=1), encoding="utf-8")
        return copy.aggregate_path("fts_only", "heldout")
    return Violation(apply)


def _freeze_missing(copy: RunCopy) -> Path:
    copy.freeze_path.unlink()
    return copy.aggregate_path("vector_only", "heldout")


def _without_search_config(record: Json) -> None:
    del record["search_config"]


def _created_later(record: Json) -> None:
    record["created_at"] = "2099-01-01T00:00:00Z"


def _config(mode: str, split: str, change: Callable[[Json], object]) -> Violation:
    return Violation(lambda copy: forger.reseal_config(copy, mode, split, change))


CORPUS_READERS = ("corpus.payload_hashes", "corpus.pinned", "corpus.contract", "corpus.ir_datasets_id", "corpus.name",
                  "corpus.semantic_text", "profile.contract", "corpus.source_hashes", "corpus.vectors",
                  "replay.lexical", "replay.depth", "rows.fact_ids", "rows.query_identity", "split.contract",
                  "split.counts", "split.membership", "split.selected_ids", "store.facts", "store.live",
                  "store.manifest", "store.mapping", "store.mapping_coverage", "store.mapping_path", "store.parts",
                  "store.unchanged_by_run", "store.vectors")
MAPPING_READERS = ("rows.fact_ids", "store.facts", "store.mapping_coverage", "store.vectors")
NO_STORE = "without a readable store there is nothing to replay the lexical lane (and the depth-100 rankings) over"

VIOLATIONS: dict[str, Violation] = {
    "inputs": Violation(_missing).stops(),
    "json.strict": _from_mutation(mutations.nan_in_aggregate).stops(),
    "aggregate.schema": _from_mutation(mutations.unknown_config_field).stops(),
    "rows.sha256": _from_mutation(mutations.rows_reordered).stops(),
    "rows.count": _from_mutation(mutations.row_dropped_digest_resealed).stops(),
    "rows.schema": _from_mutation(mutations.gap_row_missing_results).stops(),
    "rows.identity": _rows("fts_only", "calibration", _row_split),
    "rows.results": _rows("vector_only", "calibration", _repeated_rank),
    "rows.metrics": _rows("fts_only", "calibration", _metric_restated),
    "rows.search_receipts": _from_mutation(mutations.search_receipt_edited),
    "rows.request_ids": _rows("fts_only", "calibration", _request_id),
    "rows.exact_backend": _from_mutation(mutations._dense_evidence(lambda dense: dense.update(exact=False))),
    "rows.order": _rows("fts_only", "calibration", _out_of_order).also(
        "replay.lexical", why="the replayed lane ranks by score too, so a row out of score order is out of its order"),
    "rows.fusion": _from_mutation(mutations.fused_score_changed),
    "rows.depth_ranking": _rows("fts_only", "calibration", _depth_search_said_failed),
    "rows.depth_metrics": _rows("vector_only", "calibration", _depth_metric_restated),
    "aggregate.depth": _aggregate_metrics(lambda m: m["depth_ranking"].update(
        top_k_prefix_differs=m["depth_ranking"]["top_k_prefix_differs"] + 1)),
    "replay.depth": _rows("hybrid", "calibration", _depth_reranked),
    "aggregate.metrics": _from_mutation(mutations.metric_digit_in_aggregate),
    # the tiny corpus's grades are binary, at most two relevant a query: both conventions give the rows' numbers
    "receipt.measures": _receipt("fts_only", "calibration", lambda r: r["measures"].update(
        ndcg_gain="exponential", map_denominator="relevant_within_k")),
    "aggregate.latency": _aggregate_metrics(lambda m: m["latency_ms"].update(p50=m["latency_ms"]["p50"] + 1.0)),
    "latency.contention": _receipt("fts_only", "calibration", lambda r: r["latency_measurement"].update(
        process_cpu_seconds=0.0, contended=False, contention=None)),
    "aggregate.failures": _aggregate_metrics(lambda m: m.update(failures=m["failures"] + 1)),
    "aggregate.result_counts": _aggregate_metrics(lambda m: m.update(result_count_distribution={"7": 99})),
    "aggregate.unique_docs": _aggregate_metrics(lambda m: m.update(
        unique_retrieved_docs=m["unique_retrieved_docs"] + 1)),
    "aggregate.repeated_top1": _aggregate_metrics(lambda m: m["repeated_top1"].update(count=99)),
    "corpus.fixture": _from_mutation(mutations.corpus_hash_swapped),
    "corpus.schema": _fixture_edit(lambda f: f.update(unexpected=True)).unreached(*CORPUS_READERS),
    "corpus.vectors": Violation(_heldout_query_vector_flipped),
    "corpus.source_hashes": _receipt("fts_only", "calibration",
                                     lambda r: r["corpus"]["source"].update(archive_sha256=OTHER_DIGEST)),
    "corpus.payload_hashes": _receipt("fts_only", "calibration",
                                      lambda r: r["corpus"]["payload_hashes"].update(documents=OTHER_DIGEST)),
    "corpus.pinned": Violation(_judged_by_the_dense_lane),
    "corpus.contract": _fixture_rewrite(lambda f: f["contract"].update(namespace="another-namespace")),
    "corpus.semantic_text": _fixture_rewrite(_edited_semantic_text),
    "corpus.name": _fixture_rewrite(lambda f: f["contract"].update(namespace="scifact")).also(
        "corpus.contract", why="a pinned dataset's contract terms include its namespace"),
    "corpus.ir_datasets_id": _receipt("fts_only", "calibration",
                                      lambda r: r["corpus"].update(ir_datasets_id="beir/scifact/test")),
    "archive.members": Violation(lambda copy: copy.aggregate_path("fts_only", "calibration"),
                                 archive=_archive_with_other_queries).unreached("archive.content"),
    "archive.content": Violation(_judged_by_the_dense_lane,
                                 archive=lambda directory: tiny_archive(directory / "tiny.zip")).also(
        "corpus.pinned", why="the archive's judgements are the pinned ones"),
    "split.contract": _receipt("fts_only", "calibration", lambda r: r["split"].update(calibration_count=1)),
    "split.membership": _from_mutation(mutations.rows_reordered_digest_resealed),
    "split.selected_ids": _receipt("fts_only", "calibration", lambda r: r["split"].update(
        selected_ids_sha256=OTHER_DIGEST)),
    "split.counts": _receipt("fts_only", "calibration", lambda r: r["split"].update(total_count=999)),
    "rows.query_identity": _rows("fts_only", "calibration", _qrels),
    "store.live": Violation(_store_digest_claimed),
    "store.manifest": _store_file(_manifest_field).also("replay.lexical", "replay.depth", why=NO_STORE).unreached(
        *MAPPING_READERS, "store.live", "store.mapping", "store.mapping_path", "store.parts", "store.unchanged_by_run"),
    "store.parts": _receipt("fts_only", "calibration", lambda r: r["store"].update(lexical_sha256=OTHER_DIGEST)),
    "store.unchanged_by_run": _receipt("fts_only", "calibration", lambda r: r["store"].update(
        before_run_sha256=OTHER_DIGEST)),
    "store.mapping_path": Violation(_mapping_elsewhere),
    "store.mapping": _store_file(_mapping_without_schema).also(
        "replay.lexical", "replay.depth", why=NO_STORE).unreached(*MAPPING_READERS),
    "store.mapping_coverage": _receipt("fts_only", "calibration", lambda r: r["store"].update(document_count=99)),
    "rows.fact_ids": _from_mutation(mutations.fact_id_changed),
    "store.vectors": _store_file(_dense_rows_swapped),
    "store.facts": _store_file(_fact_text),
    "rows.query_vectors": _rows("vector_only", "calibration", _query_vector),
    "replay.lexical": _forged("fts_only"),
    "replay.dense": _forged("vector_only"),
    "replay.fusion": _rows("hybrid", "calibration", _drop_last_hybrid_result),
    "receipt.identity": _receipt("vector_only", "calibration", mutations._split_contradicts_aggregate),
    "receipt.embedding": _receipt("vector_only", "calibration", mutations._model_contradicts_fixture),
    "receipt.exact_backend": _receipt("vector_only", "calibration", mutations._backend_not_exact),
    "config.sha256": _from_mutation(mutations.config_edited("calibration")),
    "config.frozen_baseline": _config("fts_only", "calibration", lambda c: c.update(sparse_weight=0.5)),
    "config.top_k": _receipt("fts_only", "calibration", lambda r: r["retrieval"].update(top_k=5)),
    "freeze": Violation(_freeze_missing).unreached("freeze.schema", "freeze.digest", "freeze.recorded",
                                                   "freeze.match", "history.trials"),
    "freeze.schema": _freeze_record(_without_search_config, reseal=False).unreached(
        "freeze.digest", "freeze.recorded", "freeze.match"),
    "freeze.digest": _freeze_record(_created_later, reseal=False),
    "freeze.recorded": _freeze_record(_created_later, reseal=True),
    "freeze.match": _config("fts_only", "heldout", lambda c: c.update(rrf_k=30)).also(
        "heldout.record", why="the held-out look's entry binds the configuration digest the receipt now misstates"),
    "freeze.history": _from_mutation(mutations.freeze_event_position_edited),
    "heldout.record": _receipt("fts_only", "heldout", lambda r: r["heldout_looks"].update(
        looks_before=r["heldout_looks"]["looks_before"] + 1)),
    "ledger.file": _from_mutation(mutations.ledger_missing).unreached("ledger.chain", "ledger.run", "freeze.history",
                                                                      "history.trials"),
    "ledger.chain": _from_mutation(mutations.ledger_event_edited),
    "ledger.run": _from_mutation(mutations.run_sequence_edited),
    # a careful forger's history: the hybrid calibration run removed, the rest chained again and the held-out
    # receipt's recorded positions following, so that only the freeze's count of calibration runs objects
    "history.trials": Violation(lambda copy: forger.rechain_without(
        copy, "fts_only", "heldout",
        lambda event: event.get("run_id") == copy.aggregate("hybrid", "calibration")["receipt"]["run"]["run_id"])),
    "executable.interpreter": _from_mutation(mutations.interpreter_digest_changed),
    "source.harness": _source(lambda source: source["harness"].update(sha256=OTHER_DIGEST)),
    "source.git": _source(lambda source: source["git"].update(available=True, commit="0" * 40)),
    "source.clean": _source(lambda source: source["git"].update(
        dirty=True, changed_paths=["harness/evaluation/runner.py (tampered)"])),
    # run from one installed distribution, validated beside another (here the same version, other files)
    "source.distribution": replace(_source(_installed_run), installed_here=Installed(
        name="scifact-harness", version="0.1.0", files_sha256=OTHER_DIGEST, changed=[])).unreached("source.git"),
    "dependencies": _receipt("fts_only", "calibration", lambda r: r["dependencies"].update(bm25s=None)),
    "machine.identity": _receipt("fts_only", "calibration", lambda r: r["machine"].update(logical_cores=None)),
    "profile.contract": _fixture_edit(_parity_profile, receipt=_profile_from_fixture).unreached(
        "corpus.semantic_text"),  # another profile's texts follow another rule
    "embeddings.model": Violation(_heldout_query_vector_nudged, full_embedding=True),
    # the tiny run is tiny-test's; the reader holds it to SciFact
    "dataset.named": Violation(lambda copy: copy.aggregate_path("fts_only", "calibration"), dataset="scifact"),
    "system.source": _receipt("fts_only", "calibration", _source_file_digest),
    "system.modules": _receipt("fts_only", "calibration", _stray_module),
}


@pytest.fixture(scope="session")
def clean_reports(clean_run: CleanRun, tmp_path_factory: pytest.TempPathFactory
                  ) -> Iterator[Callable[[str, bool, bool], Report]]:
    """The validator's report on the clean run's aggregate of that name (fts_only calibration's for a name the clean
    run does not hold), with or without the full embedding check, and re-derived from the genuine tiny archive or
    not; each made once."""
    made: dict[tuple[str, bool, bool], Report] = {}
    archive = tiny_archive(tmp_path_factory.mktemp("clean-archive") / "tiny.zip")

    def report(name: str, full_embedding: bool, with_archive: bool) -> Report:
        path = clean_run.out / name
        path = path if path.is_file() else clean_run.aggregate_path("fts_only", "calibration")
        key = (path.name, full_embedding, with_archive)
        if key not in made:
            made[key] = validate(path, embeddings=full_embedding, full_embedding=full_embedding,
                                 archive=archive if with_archive else None)
        return made[key]
    yield report


def test_every_check_in_the_catalog_has_a_violation_and_nothing_else_does() -> None:
    """Aggregate checks have their case here; comparison checks theirs in test_comparison_coverage.py, and checks of a
    comparison between systems in test_systems_coverage.py, the bundle's texts in test_bundle_texts.py, a run file's
    rankings in test_run_file_checks.py, measures chosen by name in test_chosen_measures.py."""
    cases = (set(VIOLATIONS), set(COMPARISON_VIOLATIONS), set(SYSTEMS_VIOLATIONS), set(TEXTS_VIOLATIONS),
             set(RUN_FILE_VIOLATIONS), set(CHOSEN_VIOLATIONS))
    covered = set().union(*cases)
    assert sum(map(len, cases)) == len(covered), "a check has cases in two places"
    missing, unknown = sorted(set(CHECKS) - covered), sorted(covered - set(CHECKS))
    assert not missing and not unknown, f"checks without a violation: {missing}; violations of no check: {unknown}"


@pytest.mark.real_model
@pytest.mark.parametrize("name", sorted(VIOLATIONS))
def test_the_violation_fails_its_check_and_no_other(name: str, run_copy: RunCopy, tmp_path: Path,
                                                     clean_reports: Callable[[str, bool, bool], Report],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    violation = VIOLATIONS[name]
    if violation.installed_here is not None:
        monkeypatch.setattr(check_source, "installed_here", lambda: violation.installed_here)
    aggregate = violation.apply(run_copy)
    archive = violation.archive(tmp_path) if violation.archive is not None else None
    report = validate(aggregate, embeddings=violation.full_embedding, full_embedding=violation.full_embedding,
                      archive=archive)
    if violation.dataset is not None:
        check_named(report, violation.dataset)
    clean = clean_reports(aggregate.name, violation.full_embedding, archive is not None)
    assert_isolated(name, violation.expected, report, clean)
    assert name in failed_names(report) and not report.eligible and report.exit_code() == 1
