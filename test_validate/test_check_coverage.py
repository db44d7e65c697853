"""Every check the validator can report is proven able to fail: for each name in its catalog, an artifact that
violates that check, and the assertion that the validator fails it. A check with no case fails this suite.
"""

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from fixtures.archives import tiny_archive, tiny_members
from harness.validator.catalog import CHECKS
from harness.validator.pipeline import validate

from . import forger, primary_forger
from . import test_mutations as mutations
from .support import Json, Row, RunCopy, describe, failed_names, sha256_bytes, sha256_file
from .test_comparison_coverage import COMPARISON_VIOLATIONS
from .test_embeddings import rewrite_document_vector

OTHER_DIGEST = sha256_bytes(b"something else")


@dataclass(frozen=True)
class Violation:
    apply: Callable[[RunCopy], Path]
    full_embedding: bool = False
    archive: Callable[[Path], Path] | None = None  # the archive given to the validator to re-derive from


def _from_mutation(function: Callable[[RunCopy], mutations.Edit]) -> Violation:
    return Violation(lambda copy: function(copy).aggregate)


def _receipt(mode: str, split: str, change: Callable[[Json], object]) -> Violation:
    return Violation(lambda copy: copy.edit_receipt(mode, split, change))


def _aggregate_metrics(change: Callable[[Json], object]) -> Violation:
    return Violation(lambda copy: copy.edit_aggregate("fts_only", "calibration", lambda a: change(a["metrics"])))


def _rows(mode: str, split: str, change: Callable[[list[Row]], object]) -> Violation:
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


def _request_id(rows: list[Row]) -> None:
    rows[0]["request_id"] = rows[0]["search_receipt"]["request_id"] = "another/run-9/" + rows[0]["query_id"]
    forger.reseal_row(rows[0])


def _out_of_order(rows: list[Row]) -> None:
    row = next(r for r in rows if len(r["results"]) > 1 and r["results"][0]["score"] > r["results"][1]["score"])
    row["results"][0], row["results"][1] = row["results"][1], row["results"][0]
    forger.reseal_row(row)


def _query_vector(rows: list[Row]) -> None:
    rows[0]["search_receipt"]["lanes"]["dense"]["query_vector_sha256"] = OTHER_DIGEST
    forger.reseal_row(rows[0])


def _drop_last_hybrid_result(rows: list[Row]) -> None:
    rows[0]["results"].pop()
    forger.reseal_row(rows[0])


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


def _store_file(change: Callable[[Path], object]) -> Violation:
    def apply(copy: RunCopy) -> Path:
        change(copy.copy_store())
        return copy.aggregate_path("fts_only", "calibration")
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


def _nudged_fixture_vector(copy: RunCopy) -> Path:
    def nudge(vectors: NDArray[np.float32]) -> NDArray[np.floating]:
        moved: NDArray[np.float64] = vectors[1].astype(np.float64) + 1e-4 * vectors[-1]
        return moved / float(np.linalg.norm(moved))
    return rewrite_document_vector(copy, 1, nudge)


def _source_file_digest(receipt: Json) -> None:
    files = receipt["system"]["source"]["files"]
    files[min(files)] = OTHER_DIGEST


def _stray_module(receipt: Json) -> None:
    """A module the system's process loaded, recorded with a digest its file does not have."""
    receipt["system"]["modules"]["stray"] = {"path": receipt["corpus"]["fixture_path"], "sha256": OTHER_DIGEST}


def _forged(mode: str) -> Violation:
    def apply(copy: RunCopy) -> Path:
        forger.forge_single_lane(copy, mode, "calibration", every_row=False)
        return copy.aggregate_path(mode, "calibration")
    return Violation(apply)


VIOLATIONS: dict[str, Violation] = {
    "inputs": Violation(_missing),
    "json.strict": _from_mutation(mutations.nan_in_aggregate),
    "aggregate.schema": _from_mutation(mutations.unknown_config_field),
    "rows.sha256": _from_mutation(mutations.rows_reordered),
    "rows.count": _from_mutation(mutations.row_dropped_digest_resealed),
    "rows.schema": _from_mutation(mutations.gap_row_missing_results),
    "rows.identity": _rows("fts_only", "calibration", _row_split),
    "rows.results": _from_mutation(mutations.ranked_id_changed),
    "rows.metrics": _from_mutation(mutations.metric_in_row),
    "rows.search_receipts": _from_mutation(mutations.search_receipt_edited),
    "rows.request_ids": _rows("fts_only", "calibration", _request_id),
    "rows.exact_backend": _from_mutation(mutations._dense_evidence(lambda dense: dense.update(exact=False))),
    "rows.order": _rows("fts_only", "calibration", _out_of_order),
    "rows.fusion": _from_mutation(mutations.fused_score_changed),
    "aggregate.metrics": _from_mutation(mutations.metric_digit_in_aggregate),
    "aggregate.latency": _aggregate_metrics(lambda m: m["latency_ms"].update(p50=m["latency_ms"]["p50"] + 1.0)),
    "latency.contention": _receipt("fts_only", "calibration", lambda r: r["latency_measurement"].update(
        process_cpu_seconds=0.0, contended=False, contention=None)),
    "aggregate.failures": _aggregate_metrics(lambda m: m.update(failures=m["failures"] + 1)),
    "aggregate.result_counts": _aggregate_metrics(lambda m: m.update(result_count_distribution={"7": 99})),
    "aggregate.unique_docs": _aggregate_metrics(lambda m: m.update(
        unique_retrieved_docs=m["unique_retrieved_docs"] + 1)),
    "aggregate.repeated_top1": _aggregate_metrics(lambda m: m["repeated_top1"].update(count=99)),
    "corpus.fixture": _from_mutation(mutations.corpus_hash_swapped),
    "corpus.schema": _fixture_edit(lambda f: f.update(unexpected=True)),
    "corpus.vectors": _from_mutation(mutations.vector_sidecar_tampered),
    "corpus.source_hashes": _receipt("fts_only", "calibration",
                                     lambda r: r["corpus"]["source"].update(archive_sha256=OTHER_DIGEST)),
    "corpus.payload_hashes": _receipt("fts_only", "calibration",
                                      lambda r: r["corpus"]["payload_hashes"].update(documents=OTHER_DIGEST)),
    "corpus.pinned": Violation(_judged_by_the_dense_lane),
    "corpus.contract": _fixture_rewrite(lambda f: f["contract"].update(namespace="another-namespace")),
    "corpus.semantic_text": _fixture_rewrite(_edited_semantic_text),
    "archive.members": Violation(lambda copy: copy.aggregate_path("fts_only", "calibration"),
                                 archive=_archive_with_other_queries),
    "archive.content": Violation(_judged_by_the_dense_lane,
                                 archive=lambda directory: tiny_archive(directory / "tiny.zip")),
    "split.contract": _from_mutation(mutations.gap_calibration_subset),
    "split.membership": _from_mutation(mutations.rows_reordered_digest_resealed),
    "split.selected_ids": _receipt("fts_only", "calibration", lambda r: r["split"].update(
        selected_ids_sha256=OTHER_DIGEST)),
    "split.counts": _receipt("fts_only", "calibration", lambda r: r["split"].update(total_count=999)),
    "rows.query_identity": _from_mutation(mutations.qrels_altered),
    "store.live": _from_mutation(mutations.stale_store),
    "store.manifest": _store_file(_manifest_field),
    "store.parts": _from_mutation(mutations.stale_store),
    "store.unchanged_by_run": _receipt("fts_only", "calibration", lambda r: r["store"].update(
        before_run_sha256=OTHER_DIGEST)),
    "store.mapping_path": _from_mutation(mutations.gap_forged_mapping),
    "store.mapping": _store_file(_mapping_without_schema),
    "store.mapping_coverage": _receipt("fts_only", "calibration", lambda r: r["store"].update(document_count=99)),
    "rows.fact_ids": _from_mutation(mutations.fact_id_changed),
    "store.vectors": _from_mutation(mutations.gap_store_vectors_differ_from_fixture),
    "store.facts": _store_file(_fact_text),
    "rows.query_vectors": _rows("vector_only", "calibration", _query_vector),
    "replay.lexical": _forged("fts_only"),
    "replay.dense": _forged("vector_only"),
    "replay.fusion": _rows("hybrid", "calibration", _drop_last_hybrid_result),
    "receipt.identity": _receipt("vector_only", "calibration", mutations._split_contradicts_aggregate),
    "receipt.embedding": _receipt("vector_only", "calibration", mutations._model_contradicts_fixture),
    "receipt.exact_backend": _receipt("vector_only", "calibration", mutations._backend_not_exact),
    "config.sha256": _from_mutation(mutations.config_edited("calibration")),
    "config.frozen_baseline": _receipt("fts_only", "calibration", lambda r: r["retrieval"]["config"].update(
        sparse_weight=0.5)),
    "config.top_k": _receipt("fts_only", "calibration", lambda r: r["retrieval"].update(top_k=5)),
    "freeze": _from_mutation(mutations.heldout_without_freeze),
    "freeze.schema": _from_mutation(mutations.gap_freeze_without_search_config),
    "freeze.digest": _from_mutation(mutations.freeze_record_edited),
    "freeze.recorded": _receipt("fts_only", "heldout", lambda r: r["freeze"].update(sha256=OTHER_DIGEST)),
    "freeze.match": _from_mutation(mutations.config_edited_digest_updated),
    "freeze.history": _from_mutation(mutations.freeze_event_position_edited),
    "heldout.record": _receipt("fts_only", "heldout", lambda r: r["heldout_looks"].update(
        looks_before=r["heldout_looks"]["looks_before"] + 1)),
    "ledger.file": _from_mutation(mutations.ledger_missing),
    "ledger.chain": _from_mutation(mutations.ledger_event_edited),
    "ledger.run": _from_mutation(mutations.run_sequence_edited),
    "executable.interpreter": _from_mutation(mutations.interpreter_digest_changed),
    "source.harness": _receipt("fts_only", "calibration", lambda r: r["source"]["harness"].update(
        sha256=OTHER_DIGEST)),
    "source.git": _receipt("fts_only", "calibration", lambda r: r["source"]["git"].update(available=True,
                                                                                           commit="0" * 40)),
    "source.clean": _from_mutation(mutations.git_marked_dirty),
    "dependencies": _receipt("fts_only", "calibration", lambda r: r["dependencies"].update(bm25s=None)),
    "machine.identity": _receipt("fts_only", "calibration", lambda r: r["machine"].update(logical_cores=None)),
    "profile.contract": _from_mutation(mutations.profile_switched),
    "embeddings.model": Violation(_nudged_fixture_vector, full_embedding=True),
    "system.source": _receipt("fts_only", "calibration", _source_file_digest),
    "system.modules": _receipt("fts_only", "calibration", _stray_module),
}


def test_every_check_in_the_catalog_has_a_violation_and_nothing_else_does() -> None:
    """Aggregate checks have their case here; comparison checks theirs in test_comparison_coverage.py."""
    covered = set(VIOLATIONS) | set(COMPARISON_VIOLATIONS)
    assert not set(VIOLATIONS) & set(COMPARISON_VIOLATIONS)
    missing, unknown = sorted(set(CHECKS) - covered), sorted(covered - set(CHECKS))
    assert not missing and not unknown, f"checks without a violation: {missing}; violations of no check: {unknown}"


@pytest.mark.real_model
@pytest.mark.parametrize("name", sorted(VIOLATIONS))
def test_the_violation_fails_its_check(name: str, run_copy: RunCopy, tmp_path: Path) -> None:
    violation = VIOLATIONS[name]
    aggregate = violation.apply(run_copy)
    archive = violation.archive(tmp_path) if violation.archive is not None else None
    report = validate(aggregate, embeddings=violation.full_embedding, full_embedding=violation.full_embedding,
                      archive=archive)
    assert name in failed_names(report), describe(report)
    assert not report.eligible and report.exit_code() == 1
