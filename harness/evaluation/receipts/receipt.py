"""The run receipt an aggregate carries: what ran, on which corpus, model, system and split, and where, in words.

No local path: the fixture, store, run ledger, freeze record, interpreter and system source are named by their file
or directory names beside the digests that bind them (`receipts/locations.py` says where the machine that ran
keeps them)."""

from typing import Any

from harness.corpus.contract import Contract
from harness.corpus.split import ALGORITHM, selected_ids_sha256
from harness.evaluation.history.ledger import CHAIN_RULE, LEDGER, RunTicket
from harness.evaluation.receipts import provenance
from harness.evaluation.receipts.claims import claim_boundary
from harness.evaluation.receipts.portable import name_of
from harness.fixture.corpus_fixture import CorpusFixture
from harness.systems.protocol import SystemUnderTest

LATENCY_SCOPE = ("the retrieval call: query tokenization and fixture vector lookup, lane scoring over every "
                 "document, candidate selection, fusion; not receipt assembly, metrics or serialization")
LATENCY_TIMER = "time.perf_counter_ns around the retrieval call"


def corpus_receipt(fixture: CorpusFixture, contract: Contract) -> dict[str, Any]:
    data = fixture.data
    return {
        "ir_datasets_id": contract.ir_datasets_id,
        "fixture_file": name_of(fixture.path),
        "fixture_sha256": fixture.sha256,
        "vectors_sha256": data["vectors"]["sha256"],
        "contract": data["contract"],
        "source": data["source"],
        "payload_hashes": data["payload_hashes"],
        "counts": data["counts"],
        "builder_version": data["builder_version"],
    }


def embedding_receipt(fixture: CorpusFixture) -> dict[str, Any]:
    embedding = fixture.data["embedding"]
    return {**{key: embedding[key] for key in ("backend", "model", "identity", "identity_sha256", "endpoint",
                                               "dimensions", "normalization", "truncation_policy",
                                               "retried_prompts", "prompts_truncated_by_model")},
            **({"computation": embedding["computation"]} if "computation" in embedding else {}),
            "semantic_text": fixture.data["semantic_text"], "profile": fixture.data["profile"]}


def ledger_receipt(ticket: RunTicket) -> dict[str, Any]:
    """The run ledger is the file `file` inside the store directory."""
    return {"file": LEDGER, "rule": CHAIN_RULE,
            "run_started": ticket.event.to_dict(),
            "freeze": ticket.freeze_event.to_dict() if ticket.freeze_event is not None else None}


def run_receipt(*, mode: str, split: str, top_k: int, fixture: CorpusFixture, contract: Contract,
                system: SystemUnderTest, argv: list[str], freeze: dict[str, str] | None, ticket: RunTicket,
                selected: list[str], before: str, after: dict[str, str], started_at: str,
                finished_at: str, source: dict[str, Any]) -> dict[str, Any]:
    return {
        "run": {"run_id": ticket.run_id, "sequence": ticket.sequence, "started_at": started_at,
                "finished_at": finished_at, "request_id_rule": "<run_id>/<query_id>"},
        "executable": provenance.executable(argv),
        "source": source,  # as it stood at the run's start: the ledger's run-started event binds its digest
        "dependencies": provenance.dependency_versions(),
        "corpus": corpus_receipt(fixture, contract),
        # the conventions every metric of the rows and the aggregate was computed under, as the contract declares them
        "measures": dict(contract.measures),
        "embedding": embedding_receipt(fixture),
        "system": system.identity().record(),
        "store": system.store_receipt(before, after),
        # a system timed in a process of its own states its own scope and timer
        "retrieval": {"latency_scope": LATENCY_SCOPE, "latency_timer": LATENCY_TIMER,
                      **system.retrieval_receipt(mode, top_k)},
        "split": {"name": split, "algorithm": ALGORITHM, "calibration_count": contract.calibration_count,
                  "total_count": len({q["query_id"] for q in fixture.data["queries"]}), "selected_count": len(selected),
                  "selected_ids_sha256": selected_ids_sha256(selected)},
        "capabilities": system.capabilities(),
        "machine": provenance.machine(),
        "claim_boundary": claim_boundary(),
        "profile": fixture.data["profile"],
        # the freeze record is the output directory's, beside the aggregate
        "freeze": None if freeze is None else {"file": name_of(freeze["path"]), "sha256": freeze["sha256"]},
        "ledger": ledger_receipt(ticket),
    }
