"""Run one mode on one split: a JSONL of per-query rows and one aggregate receipt, written atomically."""

import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.corpus.contract import Contract, artifact_dataset
from harness.corpus.split import select
from harness.evaluation.depth_ranking import Cut, add_depth_rankings, lane_cut
from harness.evaluation.history import heldout_record, ledger
from harness.evaluation.measures.aggregate import aggregate_metrics
from harness.evaluation.measures.chosen import ChosenMeasures
from harness.evaluation.measures.contention import REPEATS, WARMUP_CALLS, Snapshot, measurement
from harness.evaluation.measures.metrics import Conventions, query_metrics
from harness.evaluation.measures.query_vectors import QueryVectors
from harness.evaluation.measures.threads import one_blas_thread
from harness.evaluation.receipts import provenance
from harness.evaluation.receipts.artifact_writer import PairWriter, exclusive_pair
from harness.evaluation.receipts.artifacts import aggregate_bytes, clear_the_way, refuse_another_dataset, rows_bytes
from harness.evaluation.receipts.identity_check import check_receipt
from harness.evaluation.receipts.locations import found_here, record_locations
from harness.evaluation.receipts.receipt import run_receipt
from harness.fixture.corpus_fixture import CorpusFixture
from harness.hashing import sha256_bytes, sha256_canonical, sha256_text
from harness.modes import mode as declared_mode
from harness.schema_check import validate
from harness.systems.protocol import SearchFailed, SearchOutcome, SearchStopped, SystemLost, SystemUnderTest

ROW_SCHEMA = "semantic-memory-scifact-query-v1"
AGGREGATE_SCHEMA = "semantic-memory-scifact-aggregate-v2"


@dataclass(frozen=True)
class FailedQuery:
    """A failed row: whose failure it is (`system` or `harness`) and its cause, without the system's name."""
    query_id: str
    failed_by: str
    cause: str


@dataclass(frozen=True)
class ModeRun:
    mode: str
    split: str
    rows_path: Path
    aggregate_path: Path
    aggregate: dict[str, Any]
    superseded: Path | None
    failures: tuple[FailedQuery, ...] = ()


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _latency_ms(outcome: SearchOutcome, started: int) -> float:
    """The system's own measurement when it timed its search in its process, else the call timed here."""
    elapsed = (time.perf_counter_ns() - started) / 1e6
    return elapsed if outcome.latency_ms is None else outcome.latency_ms


def failure_of(exc: Exception, system: str) -> tuple[str, str, str]:
    """Whose failure a failed query is, its cause, and the row's error naming the one who can fix it: the system
    (its search raised, or its answer broke a rule of search) or the harness (anything else)."""
    if isinstance(exc, SearchFailed):
        return "system", exc.error, f"system {system!r}: {exc.error}"
    cause = f"{type(exc).__name__}: {exc}"
    return "harness", cause, f"a fault of the harness: {cause}; report it"


def _row(mode: str, split: str, query: dict[str, Any], request_id: str, system: SystemUnderTest,
         vectors: QueryVectors | None, top_k: int, repeats: int, cut: Cut | None,
         conventions: Conventions) -> tuple[dict[str, Any], FailedQuery | None]:
    """`vectors` is None for a mode without a dense lane, which needs no query vector; `cut` gives the depth-100
    entry from the first timed call's lanes (depth_ranking.lane_cut), None when the run searches again for it;
    `conventions` are the contract's declared metric conventions."""
    text = query["text"]
    error, failed, hits, receipt, depth = None, None, [], None, None
    started = time.perf_counter_ns()
    try:
        outcome = system.search(mode, text, vectors(text) if vectors is not None else None, top_k)
        samples = [_latency_ms(outcome, started)]
        for _ in range(repeats - 1):  # the same call again: the row keeps the median (contention.py)
            started = time.perf_counter_ns()
            again = system.search(mode, text, vectors(text) if vectors is not None else None, top_k)
            samples.append(_latency_ms(again, started))
        latency_ms = statistics.median(samples)
        hits, receipt = outcome.hits, system.search_receipt(outcome, text, request_id)
        depth = None if cut is None else cut(outcome)
    except SearchStopped as exc:  # every answer of the system's code breaks this rule: the run stops here
        raise exc.at(system.identity().name, query["query_id"]) from exc
    except SystemLost:  # the system can answer no more: the run stops, nothing is written
        raise
    except Exception as exc:  # a failed query keeps its row and counts as zero in every mean
        measured = exc.latency_ms if isinstance(exc, SearchFailed) else None
        latency_ms = (time.perf_counter_ns() - started) / 1e6 if measured is None else measured
        failed_by, cause, error = failure_of(exc, system.identity().name)
        failed = FailedQuery(query["query_id"], failed_by, cause)
        receipt = {"request_id": request_id, "mode": mode, "query_sha256": sha256_text(text), "error": error,
                   "result_count": 0}
    ranked = [hit.doc_id for hit in hits]
    row = {
        "schema": ROW_SCHEMA,
        "mode": mode,
        "split": split,
        "query_id": query["query_id"],
        "query_sha256": sha256_text(text),
        "qrels": query["qrels"],
        "ranked_doc_ids": ranked,
        "results": [{"rank": rank, "doc_id": hit.doc_id, "fact_id": hit.fact_id, "score": hit.score,
                     "lanes": hit.lanes} for rank, hit in enumerate(hits, start=1)],
        "latency_ms": latency_ms,
        "error": error,
        "failed_by": None if failed is None else failed.failed_by,
        "metrics": query_metrics(ranked, query["qrels"], conventions),
        "request_id": request_id,
        "search_receipt": receipt,
        "search_receipt_sha256": sha256_canonical(receipt),
    }
    if depth is not None:  # cut from this call's lanes; the metrics of it come with the others' (depth_ranking.py)
        row["depth_ranking"] = depth
    return row, failed


def warm_up(mode: str, queries: list[dict[str, Any]], system: SystemUnderTest, vectors: QueryVectors | None,
            top_k: int) -> None:
    """Search a few queries untimed first, so the first timed call pays for no cold cache or lazy set-up."""
    for query in queries:
        text = query["text"]
        try:
            system.search(mode, text, vectors(text) if vectors is not None else None, top_k)
        except SearchStopped as exc:
            raise exc.at(system.identity().name, query["query_id"]) from exc
        except SystemLost:
            raise
        except Exception:  # a failing query fails again, timed, in its own row
            continue


def run_mode(*, mode: str, split: str, fixture: CorpusFixture, contract: Contract, system: SystemUnderTest,
             top_k: int, output_dir: Path, replace: bool, argv: list[str],
             freeze: dict[str, str] | None = None, chosen: ChosenMeasures | None = None) -> ModeRun:
    """Run one mode on one split. `freeze` is the verified freeze reference (held-out and all-query runs); such a
    run must also be in turn in the system's history (`ledger.check_turn`), or nothing is written, and it appends
    its look to the per-user held-out record (`heldout_record`) once numbered, before its first search."""
    declared_mode(mode, system.modes)
    queries = {query["query_id"]: query for query in fixture.data["queries"]}
    selected = select(queries, split, contract.calibration_count)
    state = system.state_directory
    gated = freeze["sha256"] if freeze is not None and split in ledger.HELD_OUT else None
    if gated is not None:
        ledger.check_turn(state, mode, split, gated)
        heldout_record.prepare()
    dataset = artifact_dataset(contract.name)
    with exclusive_pair(output_dir, dataset, mode, split, replace=replace) as pair:
        refuse_another_dataset(output_dir, dataset)
        superseded = clear_the_way(output_dir, dataset, mode, split, replace)
        before = sha256_canonical(system.part_digests())
        started_at = _now()
        source = provenance.harness_source()  # the source state at the start, bound by the run-started event
        ticket = ledger.begin_run(state, system.namespace, mode, split, selected, started_at,
                                  source_sha256=sha256_canonical(source), freeze_sha256=gated,
                                  configuration_sha256=system.identity().configuration_sha256)
        try:
            look = None if gated is None else _record_look(fixture, contract, system, mode, split, gated,
                                                           ticket.run_id)
            rows, aggregate, failures = _results(
                mode=mode, split=split, fixture=fixture, contract=contract, system=system, top_k=top_k,
                pair=pair, argv=argv, freeze=freeze, ticket=ticket, look=look, selected=selected, before=before,
                started_at=started_at, source=source, chosen=chosen)
        except BaseException:
            ledger.finish_run(state, ticket.run_id, "failed", _now())
            raise
        finally:
            system.release()  # a connection or lock the searches held, until the next search
        # The history says complete before the files appear: an aggregate on disk always has a finished run.
        ledger.finish_run(state, ticket.run_id, "complete", aggregate["receipt"]["run"]["finished_at"])
        pair.commit(ticket.run_id, rows, aggregate_bytes(aggregate))
        interpreter = aggregate["receipt"]["executable"]["interpreter_sha256"]
        record_locations(output_dir, found_here(fixture, system, interpreter))  # a local hint, bound by nothing
    return ModeRun(mode, split, pair.rows_path, pair.aggregate_path, aggregate, superseded, failures)


def _record_look(fixture: CorpusFixture, contract: Contract, system: SystemUnderTest, mode: str, split: str,
                 freeze_sha256: str, run_id: str) -> heldout_record.Look:
    """The run's entry in the per-user held-out record, written before its first query is searched."""
    identity = system.identity()
    name = contract.ir_datasets_id or contract.name
    return heldout_record.append_look(
        dataset=name, dataset_sha256=heldout_record.dataset_key(name, fixture.data["payload_hashes"],
                                                                contract.calibration_count),
        fixture_sha256=fixture.sha256, split=split, mode=mode, system=identity.name,
        configuration_sha256=identity.configuration_sha256, store_sha256=system.sha256,
        store_directory=str(system.state_directory.absolute()), freeze_sha256=freeze_sha256,
        host=provenance.machine()["hostname"], run_id=run_id)


def _results(*, mode: str, split: str, fixture: CorpusFixture, contract: Contract, system: SystemUnderTest,
             top_k: int, pair: PairWriter, argv: list[str], freeze: dict[str, str] | None, ticket: ledger.RunTicket,
             look: heldout_record.Look | None, selected: list[str], before: str, started_at: str,
             source: dict[str, Any], chosen: ChosenMeasures | None
             ) -> tuple[bytes, dict[str, Any], tuple[FailedQuery, ...]]:
    """The rows (as the JSONL's bytes), the aggregate and the failed queries; nothing is written here."""
    queries = {query["query_id"]: query for query in fixture.data["queries"]}
    vectors = QueryVectors(fixture) if declared_mode(mode).dense else None
    conventions = Conventions.declared(contract.measures)
    with one_blas_thread() as blas:
        warm_up(mode, [queries[qid] for qid in selected[:WARMUP_CALLS]], system, vectors, top_k)
        workers = system.processes()
        cut = lane_cut(system)
        timing = Snapshot.take(workers)
        answered = [_row(mode, split, queries[qid], ticket.request_ids[qid], system, vectors, top_k, REPEATS, cut,
                         conventions) for qid in selected]
        timed = Snapshot.take(workers)
    rows = [row for row, _ in answered]
    latency = measurement(timing, timed, warmup_calls=min(WARMUP_CALLS, len(selected)), repeats=REPEATS, blas=blas,
                          workers=len(workers))
    # what the lanes gave no row: untimed, after every call
    add_depth_rankings(rows, queries, system, mode, vectors, conventions)
    if chosen is not None:
        chosen.add_to(rows, conventions)
    system.verify_bound()
    after = system.part_digests()
    finished_at = _now()
    for row in rows:
        validate(row, "query-row")
    data = rows_bytes(rows)
    aggregate = {
        "schema": AGGREGATE_SCHEMA,
        "mode": mode,
        "split": split,
        "row_count": len(rows),
        "per_query_path": pair.rows_path.name,
        "per_query_sha256": sha256_bytes(data),
        "metrics": aggregate_metrics(rows, top_k),
        **({} if chosen is None else {"measures": chosen.block(rows)}),
        "receipt": {**run_receipt(mode=mode, split=split, top_k=top_k, fixture=fixture, contract=contract,
                                  system=system, argv=argv, freeze=freeze, ticket=ticket, selected=selected,
                                  before=before, after=after, started_at=started_at, finished_at=finished_at,
                                  source=source),
                    "heldout_looks": None if look is None else look.receipt(),
                    "latency_measurement": latency},
    }
    check_receipt(aggregate, system.identity())
    return data, aggregate, tuple(failed for _, failed in answered if failed is not None)
