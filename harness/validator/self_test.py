"""--self-test: write a tiny, self-consistent run with no harness code, validate it, then tamper with it.

The run (self_test_run.py) records no git state, so 'source.git' stays not verified, and the embedding
check is skipped. Its corpus is generated, no dataset the validator holds pins for, and no archive is given to
re-derive it from, so 'corpus.pinned' must not pass: it is not verified, never taken on the run's word. Every other
check must pass on the clean copy, and each tampering must fail its check.
"""

import json
import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .core.digests import canonical, sha256_bytes, sha256_canonical
from .core.locations import NAME
from .history.ledger_chain import LEDGER
from .pipeline import validate
from .retrieval import ir_metrics
from .self_test_inputs import write_json
from .self_test_run import generate


def _edit_history(aggregate: Path) -> None:
    connection = sqlite3.connect(aggregate.parent / "store" / LEDGER)
    try:
        with connection:
            connection.execute("UPDATE history SET event = replace(event, 'calibration', 'heldout') "
                               "WHERE position = 1")
    finally:
        connection.close()


def _edit_json(path: Path, change: Callable[[Any], None]) -> None:
    value = json.loads(path.read_text(encoding="utf-8"))
    change(value)
    write_json(path, value)


TAMPERING: dict[str, tuple[str, Callable[[Path], object]]] = {
    "a metric digit": ("aggregate.metrics", lambda p: _edit_json(p, lambda a: a["metrics"].update(
        ndcg_at_10=a["metrics"]["ndcg_at_10"] + 1e-6))),
    "a NaN": ("json.strict", lambda p: p.write_text(p.read_text().replace('"max": 2.5', '"max": NaN'))),
    "a store byte": ("store.live", lambda p: (p.parent / "store" / "dense.f32").write_bytes(b"dense!")),
    "a ranking reordered, digests resealed": ("replay.lexical", lambda p: _reorder_first_row(p)),
    "a stored fact's text": ("store.facts", lambda p: _edit_fact_text(p.parent / "store" / "facts.sqlite3")),
    "an unknown config field": ("aggregate.schema", lambda p: _edit_json(p, lambda a: a["receipt"]["retrieval"][
        "config"].update(boost=2))),
    "a history event": ("ledger.chain", _edit_history),
}


def _reorder_first_row(aggregate_path: Path) -> None:
    """Swap a row's two results (scores stay in order) and reseal every digest, as a careful forger would."""
    aggregate = json.loads(aggregate_path.read_text(encoding="utf-8"))
    rows_path = aggregate_path.parent / aggregate["per_query_path"]
    rows = [json.loads(line) for line in rows_path.read_bytes().splitlines()]
    row = next(r for r in rows if len(r["results"]) == 2)
    first, second = row["results"]
    first["doc_id"], second["doc_id"] = second["doc_id"], first["doc_id"]
    first["fact_id"], second["fact_id"] = second["fact_id"], first["fact_id"]
    row["ranked_doc_ids"] = [first["doc_id"], second["doc_id"]]
    row["metrics"] = ir_metrics.compute(row["ranked_doc_ids"], row["qrels"], ir_metrics.TREC_EVAL)
    receipt = row["search_receipt"]
    receipt["results_sha256"] = sha256_canonical([[r["doc_id"], r["fact_id"], r["score"]] for r in row["results"]])
    row["search_receipt_sha256"] = sha256_canonical(receipt)
    data = b"".join(canonical(r) + b"\n" for r in rows)
    rows_path.write_bytes(data)
    aggregate["per_query_sha256"] = sha256_bytes(data)
    write_json(aggregate_path, aggregate)


def _edit_fact_text(database: Path) -> None:
    connection = sqlite3.connect(database)
    with connection:
        connection.execute("UPDATE facts SET body = body || ' gamma' WHERE fact_id = 1")
    connection.close()


def run_self_test() -> int:
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        clean = generate(Path(tmp) / "clean")
        report = validate(clean, embeddings=False)
        unexpected = [c.line() for c in report.failed]
        print(f"clean run: {len(report.checks)} checks, {len(report.failed)} failed, {len(report.not_verified)} not "
              "verified (expected: corpus.pinned, a generated corpus without its archive; source.git, "
              "embeddings.model)")
        if sorted(c.name for c in report.not_verified) != ["corpus.pinned", "embeddings.model", "source.git"]:
            failures.append(f"unexpected not-verified checks: {[c.name for c in report.not_verified]}")
        failures += unexpected
        for what, (check, tamper) in TAMPERING.items():
            copy = Path(tmp) / what.replace(" ", "-")
            shutil.copytree(clean.parent, copy)
            _repoint(copy / clean.name, clean.parent, copy)
            tamper(copy / clean.name)
            tampered = validate(copy / clean.name, embeddings=False)
            caught = any(c.name == check for c in tampered.failed)
            print(f"tampered ({what}): {'caught by ' + check if caught else 'NOT CAUGHT'}")
            if not caught:
                failures.append(f"{what} was not caught by {check}")
    print("self-test passed" if not failures else "self-test FAILED:\n" + "\n".join(failures))
    return 0 if not failures else 1


def _repoint(aggregate: Path, old: Path, new: Path) -> None:
    """The copy's locations.json places the clean run's files; make it place its own (the receipt names no place)."""
    places = aggregate.parent / NAME
    places.write_text(places.read_text(encoding="utf-8").replace(str(old), str(new)), encoding="utf-8")
